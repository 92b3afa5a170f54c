import { toggled } from '../components/form';
import type { ResourceServer } from './applications-data';

/** The scopes an API defines, as checkboxes (for a client grant or a role's permissions). */
export function ScopeChecks({ api, chosen, onChange }: { api: ResourceServer; chosen: Set<string>; onChange: (next: Set<string>) => void }) {
  const scopes = api.scopes ?? [];
  return (
    <fieldset class="scopes">
      <legend>Scopes of {api.name}</legend>
      {scopes.length === 0 ? (
        <p>This API defines no scope.</p>
      ) : (
        scopes.map((s) => (
          <label class="check" key={s.value}>
            <input
              type="checkbox"
              checked={chosen.has(s.value)}
              onChange={(e) => onChange(toggled(chosen, s.value, (e.target as HTMLInputElement).checked))}
            />
            <span>
              <code>{s.value}</code>
              {s.description ? <span class="detail"> {s.description}</span> : null}
            </span>
          </label>
        ))
      )}
    </fieldset>
  );
}
