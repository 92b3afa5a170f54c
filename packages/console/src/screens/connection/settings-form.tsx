import type { ComponentChildren } from 'preact';
import { Notice } from '../../components/ui';
import type { SectionProps } from './section';

/**
 * A part of the connection's page as a card with one form: saving asks first, listing each change
 * (`effects`, a sentence each; none leaves the button disabled), then `apply`s them together;
 * `notice` (what `usePatch` announced) shows beside the button.
 */
export function SettingsForm({
  id,
  heading,
  question,
  effects,
  apply,
  applied,
  save,
  notice,
  confirm,
  canUpdate,
  children,
}: {
  id: string;
  heading: string;
  /** The confirmation dialog's title. */
  question: string;
  effects: string[];
  apply: () => Promise<unknown>;
  applied: () => void;
  /** The submit button's words. */
  save: string;
  notice: string;
  confirm: SectionProps['confirm'];
  canUpdate: boolean;
  children: ComponentChildren;
}) {
  return (
    <section class="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{heading}</h2>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          confirm({
            title: question,
            effect: (
              <ul>
                {effects.map((effect) => (
                  <li key={effect}>{effect}</li>
                ))}
              </ul>
            ),
            action: 'Apply',
            run: apply,
            done: applied,
          });
        }}
      >
        {children}
        {canUpdate && (
          <button type="submit" class="primary" disabled={effects.length === 0}>
            {save}
          </button>
        )}
        {notice && <Notice>{notice}</Notice>}
      </form>
    </section>
  );
}
