/** Where in a tenant file a problem is: the section, the entry's index and how it is named, the field. */
export interface TenantFilePlace {
  section?: string;
  index?: number;
  /** The entry's name (identifier, client_id...), when it has one. */
  label?: string;
  /** Dotted path inside the entry (`options.gateway_url`, `grant_types.0`). */
  field?: string;
}

/** `clients[1] "Demo M2M": grant_types.0` */
export function describePlace(place: TenantFilePlace): string {
  const entry = place.section === undefined ? '' : `${place.section}${place.index === undefined ? '' : `[${place.index}]`}${place.label ? ` "${place.label}"` : ''}`;
  return [entry, place.field].filter((part) => part).join(': ');
}

/**
 * A tenant file identity refuses to apply (and so refuses to start with): the message names the
 * file, the entry and the field, e.g. `TENANT_FILE /etc/smsauth/tenant.json: clients[1] "Demo
 * M2M": grant_types: client_credentials needs a confidential client`.
 */
export class TenantFileError extends Error {
  constructor(
    readonly source: string,
    readonly place: TenantFilePlace,
    readonly problem: string,
  ) {
    const where = describePlace(place);
    super(`${source}: ${where ? `${where}: ` : ''}${problem}`);
    this.name = 'TenantFileError';
  }
}
