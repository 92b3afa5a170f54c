import { HttpError } from '@smsauth/service-kit';
import type { IdentityStore } from '../../store';
import type { ConnectionRules } from '../management/connections';
import { applySettings, type SettingsSectionName } from './appearance';
import { applyClient, applyClientGrant } from './clients';
import type { EntryAction } from './compare';
import { applyConnection } from './connections';
import { SECTION_NAMES, type SectionName, type TenantDocument, type TenantEntry } from './entries';
import { TenantFileError } from './errors';
import { applyResourceServer, applyRole } from './roles';

/** What applying one entry did, for the log and the command line (never a value: secrets stay out). */
export interface AppliedEntry {
  section: SectionName | SettingsSectionName;
  label?: string;
  action: EntryAction;
}

/** The refusal of a management operation, as a problem of the entry: the field it names, and why. */
function asEntryProblem(source: string, entry: TenantEntry<SectionName>, err: unknown): unknown {
  if (!(err instanceof HttpError)) return err;
  const [detail] = err.options.details ?? [];
  const place = { section: entry.section, index: entry.index, label: entry.label };
  return detail
    ? new TenantFileError(source, { ...place, field: detail.path || undefined }, detail.message)
    : new TenantFileError(source, place, err.errorDescription);
}

/** A refusal while applying the one-object sections (a text's screen of another prompt): its field. */
function asSettingsProblem(source: string, err: unknown): unknown {
  if (!(err instanceof HttpError)) return err;
  const [detail] = err.options.details ?? [];
  return new TenantFileError(source, { section: 'custom_text', field: detail?.path || undefined }, detail?.message ?? err.errorDescription);
}

/**
 * Creates or updates what the document describes, with the management API's own operations
 * (the same checks, the same refusals), in one transaction under the bootstrap lock: a refused
 * entry leaves the tenant as it was, and instances starting together apply it once. APIs first,
 * then clients, connections, client grants, roles, so that each finds what it names; then the
 * pages' languages, brand and texts. Nothing the document does not name is changed or deleted.
 */
export async function applyTenantDocument(
  store: IdentityStore,
  rules: ConnectionRules,
  document: TenantDocument,
  source: string,
  now: Date = new Date(),
): Promise<AppliedEntry[]> {
  return store.transaction(async (tx) => {
    await tx.lockForTransaction('bootstrap');
    const appliers: { [S in SectionName]: (entry: TenantEntry<S>) => Promise<EntryAction> } = {
      resource_servers: (entry) => applyResourceServer(tx, entry),
      clients: (entry) => applyClient(tx, entry),
      connections: (entry) => applyConnection(tx, rules, entry),
      client_grants: (entry) => applyClientGrant(tx, entry),
      roles: (entry) => applyRole(tx, entry),
    };
    const applied: AppliedEntry[] = [];
    for (const section of SECTION_NAMES) {
      for (const entry of document[section] as Array<TenantEntry<SectionName>>) {
        try {
          const action = await (appliers[section] as (entry: TenantEntry<SectionName>) => Promise<EntryAction>)(entry);
          applied.push({ section, label: entry.label, action });
        } catch (err) {
          throw asEntryProblem(source, entry, err);
        }
      }
    }
    try {
      applied.push(...(await applySettings(tx, document.settings, now)));
    } catch (err) {
      throw asSettingsProblem(source, err);
    }
    return applied;
  });
}
