import { useEffect, useRef, useState } from 'preact/hooks';
import { Notice } from '../../components/ui';
import { FieldError } from '../../components/field-error';
import { inputValue, usePatch, type SectionProps } from './section';

/** packages/contracts DELIVERY_CHANNELS and CHANNEL_NAMES (the console does not import the contracts package). */
const CHANNEL_NAMES: Record<string, string> = { sms: 'SMS', whatsapp: 'WhatsApp', voice: 'Voice call' };
const POSITIONS = ['First', 'Then', 'Last'];

/** One entry of `options.channels`: `default` or a country code, and its channels in order ('' for none). */
interface Rule {
  key: string;
  channels: string[];
}

type Table = Record<string, string[]>;

const rulesOf = (table: Table | undefined): Rule[] =>
  Object.entries(table ?? {}).map(([key, list]) => ({ key, channels: POSITIONS.map((_, i) => list[i] ?? '') }));

/** The table the rules say; keys as the API writes them (`default`, upper-case country codes). */
function tableOf(rules: Rule[]): Table {
  return Object.fromEntries(
    rules.map((rule) => {
      const key = rule.key.trim();
      return [key.toLowerCase() === 'default' ? 'default' : key.toUpperCase(), rule.channels.filter(Boolean)];
    }),
  );
}

const sameTable = (a: Table, b: Table) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
const spoken = (list: string[]) => list.map((c) => CHANNEL_NAMES[c] ?? c).join(', then ');

/** Which channels carry codes (docs/channels.md): per country, in the order a start tries them. */
export function ChannelSettings({ connection, confirm, reload, canUpdate }: SectionProps) {
  const { refusal, patch, notice, saved } = usePatch(connection, reload);
  const stored = connection.options.channels as Table | undefined;
  const [rules, setRules] = useState<Rule[]>(rulesOf(stored));
  const table = tableOf(rules);
  const change = sameTable(table, stored ?? {}) ? undefined : rules.length ? table : null;
  const setRule = (index: number, rule: Rule) => setRules(rules.map((r, i) => (i === index ? rule : r)));
  // Keyboard users land on what they act on: a new rule's country field; after a removal, "Add a rule".
  const addButton = useRef<HTMLButtonElement>(null);
  const [added, setAdded] = useState<{ index: number } | undefined>();
  useEffect(() => {
    if (added) document.getElementById(`channel-key-${added.index}`)?.focus();
  }, [added]);

  return (
    <section class="card" aria-labelledby="channels-title">
      <h2 id="channels-title">Channels</h2>
      <p>
        How a code reaches a number: its country's list, else the <code>default</code> list, else SMS only. A start uses the first channel; when that one cannot take the message, the
        next.
      </p>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          confirm({
            title: `Change the channels of ${connection.name}?`,
            effect:
              change === null ? (
                <p>The channels table is removed: every number gets its code by SMS only, from the next start.</p>
              ) : (
                <>
                  <p>From the next start:</p>
                  <ul>
                    {Object.entries(change ?? {}).map(([key, list]) => (
                      <li key={key}>
                        {key === 'default' ? 'Numbers of any other country' : `Numbers of ${key}`}: {spoken(list)}
                      </li>
                    ))}
                    {!change?.default && <li>Numbers of any other country: SMS only</li>}
                  </ul>
                  <p>A channel the gateway has no route for fails over to the next one in the list.</p>
                </>
              ),
            action: 'Apply',
            run: () => patch({ options: { channels: change } }),
            done: () => saved('Channels saved.'),
          });
        }}
      >
        <fieldset disabled={!canUpdate}>
          <legend>Channels by country (none: SMS only)</legend>
          <FieldError error={refusal} path="options.channels" id="channels-error" />
          {rules.map((rule, index) => (
            <fieldset key={index} class="channel-rule" data-testid={`channel-rule-${index}`}>
              <legend>Rule {index + 1}</legend>
              <span class="channel-choice">
                <label for={`channel-key-${index}`}>Country (ISO code) or default</label>
                <input id={`channel-key-${index}`} required size={8} value={rule.key} onInput={(e) => setRule(index, { ...rule, key: inputValue(e) })} placeholder="BR" />
              </span>
              {POSITIONS.map((position, p) => (
                <span key={position} class="channel-choice">
                  <label for={`channel-${index}-${p}`}>{position}</label>
                  <select
                    id={`channel-${index}-${p}`}
                    value={rule.channels[p]}
                    onChange={(e) => setRule(index, { ...rule, channels: rule.channels.map((c, i) => (i === p ? (e.target as HTMLSelectElement).value : c)) })}
                  >
                    <option value="">{p === 0 ? 'choose' : 'none'}</option>
                    {Object.entries(CHANNEL_NAMES).map(([value, name]) => (
                      <option key={value} value={value}>
                        {name}
                      </option>
                    ))}
                  </select>
                </span>
              ))}
              {canUpdate && (
                <button
                  type="button"
                  class="link"
                  onClick={() => {
                    setRules(rules.filter((_, i) => i !== index));
                    addButton.current?.focus();
                  }}
                >
                  Remove rule {index + 1}
                </button>
              )}
            </fieldset>
          ))}
          {canUpdate && (
            <p>
              <button
                type="button"
                ref={addButton}
                onClick={() => {
                  setRules([...rules, { key: rules.length ? '' : 'default', channels: ['sms', '', ''] }]);
                  setAdded({ index: rules.length });
                }}
              >
                Add a rule
              </button>
            </p>
          )}
        </fieldset>
        {canUpdate && (
          <button type="submit" class="primary" disabled={change === undefined}>
            Save channels…
          </button>
        )}
        {notice && <Notice>{notice}</Notice>}
        </form>
    </section>
  );
}
