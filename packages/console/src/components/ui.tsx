import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { timeTexts } from '../time';

/** An API error as the API said it: the code and the message, announced to screen readers. */
export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  const text =
    error instanceof ApiError ? `${error.message} (HTTP ${error.status}, ${error.code})` : error instanceof Error ? error.message : String(error);
  return (
    <p class="error" role="alert">
      {text}
    </p>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

/**
 * Loads data when `deps` change; `reload` loads again (after an action). New deps show nothing of
 * the old ones' data while they load; a reload keeps the data shown until the new answer.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | undefined; error: unknown; loading: boolean; reload: () => void } {
  const [tick, setTick] = useState(0);
  const depsKey = JSON.stringify(deps);
  const [state, setState] = useState<{ depsKey: string | undefined; tick: number; data: T | undefined; error: unknown }>({ depsKey: undefined, tick: 0, data: undefined, error: undefined });
  useEffect(() => {
    let live = true;
    load().then(
      (data) => live && setState({ depsKey, tick, data, error: undefined }),
      (error: unknown) => live && setState({ depsKey, tick, data: undefined, error }),
    );
    return () => {
      live = false;
    };
  }, [depsKey, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  const sameDeps = state.depsKey === depsKey;
  return { data: sameDeps ? state.data : undefined, error: sameDeps ? state.error : undefined, loading: !sameDeps || state.tick !== tick, reload };
}

export interface Confirmation {
  title: string;
  /** What will change, in words, before it changes. */
  effect: ComponentChildren;
  action: string;
  danger?: boolean;
  run: () => Promise<unknown>;
  /** After it succeeded (reload the data). */
  done?: () => void;
}

/** Asks before a change (the first half of what `useConfirm` answers). */
export type Confirm = (c: Confirmation) => void;

/**
 * Every change goes through this: a modal dialog saying what will change, Cancel focused first;
 * the API's answer (or its error, as it said it) shown in the dialog.
 */
export function useConfirm(): [Confirm, ComponentChildren] {
  const [pending, setPending] = useState<Confirmation | undefined>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  useEffect(() => {
    if (pending && dialog.current && !dialog.current.open) dialog.current.showModal();
  }, [pending]);
  // Cancel, Escape and a finished action all end here: focus goes back to what opened the dialog.
  const closed = () => {
    setPending(undefined);
    setError(undefined);
    (opener.current as HTMLElement | null)?.focus?.();
  };
  const close = () => {
    if (dialog.current?.open) dialog.current.close();
    closed();
  };
  const confirm = async () => {
    if (!pending) return;
    setBusy(true);
    setError(undefined);
    try {
      await pending.run();
      const done = pending.done;
      close();
      done?.();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const element = pending ? (
    <dialog ref={dialog} class="confirm" aria-labelledby="confirm-title" aria-describedby="confirm-effect" onClose={closed}>
      <h2 id="confirm-title">{pending.title}</h2>
      <div id="confirm-effect">{pending.effect}</div>
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="button" autofocus onClick={close}>
          Cancel
        </button>
        <button type="button" class={pending.danger ? 'danger' : 'primary'} disabled={busy} onClick={confirm}>
          {busy ? 'Working…' : pending.action}
        </button>
      </div>
    </dialog>
  ) : null;
  return [
    (c) => {
      opener.current = document.activeElement;
      setError(undefined);
      setPending(c);
    },
    element,
  ];
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  );
}

/** A time in the operator's zone, with UTC on hover (and to a screen reader through `dateTime`). */
export function When({ iso }: { iso: string | undefined | null }) {
  const texts = iso ? timeTexts(iso) : undefined;
  if (!iso || !texts) return <>{iso || '—'}</>;
  return (
    <time dateTime={iso} title={texts.utc}>
      {texts.local}
    </time>
  );
}

export function formatDate(iso: string | undefined | null): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

export function percent(fraction: number | null | undefined): string {
  return fraction === null || fraction === undefined || Number.isNaN(fraction) ? '—' : `${(fraction * 100).toFixed(1)} %`;
}

/**
 * Focus on the element when it appears: a form opened by a button (which it replaces) starts at
 * its first field, so keyboard and screen-reader users land in it.
 */
export function useFocusOnMount<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => ref.current?.focus(), []);
  return ref;
}
