import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Confirm, Confirmation } from './ui';

/** A form's last row: Cancel (closes it unsaved) and its submit button, which asks before anything changes. */
export function FormActions({ close, submit }: { close: () => void; submit: string }) {
  return (
    <div class="actions">
      <button type="button" onClick={close}>
        Cancel
      </button>
      <button type="submit" class="primary">
        {submit}
      </button>
    </div>
  );
}

/**
 * A button ("New API…") that opens a form in its place. The form gets `close` (Cancel), which puts
 * the button back, and `done` (its change applied), which does too and then calls `done` given here.
 */
export function FormOpener({ label, done, children }: { label: string; done?: () => void; children: (close: () => void, done: () => void) => ComponentChildren }) {
  const [open, setOpen] = useState(false);
  if (!open)
    return (
      <p>
        <button type="button" onClick={() => setOpen(true)}>
          {label}
        </button>
      </p>
    );
  const close = () => setOpen(false);
  return (
    <>
      {children(close, () => {
        close();
        done?.();
      })}
    </>
  );
}

/** "Delete <name>…": a danger-styled dialog says what is lost (`effect`) before the delete runs. */
export function DeleteButton({
  confirm,
  kind,
  name,
  ...rest
}: { confirm: Confirm; kind: string; name: string } & Pick<Confirmation, 'effect' | 'run' | 'done'>) {
  return (
    <button type="button" class="danger" onClick={() => confirm({ title: `Delete the ${kind} ${name}?`, action: `Delete the ${kind}`, danger: true, ...rest })}>
      Delete {name}…
    </button>
  );
}

/** `chosen` with `value` in it (`checked`) or not: what a checkbox of a set changes it to. */
export function toggled<T>(chosen: Set<T>, value: T, checked: boolean): Set<T> {
  const next = new Set(chosen);
  if (checked) next.add(value);
  else next.delete(value);
  return next;
}
