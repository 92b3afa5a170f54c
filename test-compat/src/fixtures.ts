import { randomBytes, randomInt } from 'node:crypto';
import { readCodeFromOutbox } from '@smsauth/stack';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: the global setup of test-compat did not run`);
  return value;
}

/** What a user's configuration holds: the domain (the SDKs build https:// URLs from it) and credentials. */
export const compat = {
  domain: required('COMPAT_DOMAIN'),
  issuer: `https://${required('COMPAT_DOMAIN')}/`,
  admin: { clientId: required('COMPAT_ADMIN_CLIENT_ID'), clientSecret: required('COMPAT_ADMIN_CLIENT_SECRET') },
  /** A regular web app (confidential) enabled on connection "sms", the connection the SDKs name. */
  app: { clientId: required('COMPAT_APP_CLIENT_ID'), clientSecret: required('COMPAT_APP_CLIENT_SECRET') },
  /** A machine-to-machine app with a grant for the airport API. */
  m2m: { clientId: required('COMPAT_M2M_CLIENT_ID'), clientSecret: required('COMPAT_M2M_CLIENT_SECRET') },
  apiAudience: required('COMPAT_API_AUDIENCE'),
  /** The id of connection "sms". */
  smsConnectionId: required('COMPAT_SMS_CONNECTION_ID'),
  gatewayUrl: required('COMPAT_GATEWAY_URL'),
  gatewayDeliveryUrl: required('COMPAT_GATEWAY_DELIVERY_URL'),
  gatewayAuthSubject: required('COMPAT_GATEWAY_AUTH_SUBJECT'),
  gatewayAuthSecret: required('COMPAT_GATEWAY_AUTH_SECRET'),
  /** The airport API (plain http: only servers call it). */
  airportUrl: required('COMPAT_AIRPORT_URL'),
};

/** Names unique per run. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}

/** A valid San Francisco number (+1 415 and an exchange 200-999: identity accepts only valid numbers), different for each call. */
export function randomPhone(): string {
  return `+1415${randomInt(2_000_000, 10_000_000)}`;
}

/**
 * The code the stack's SMS gateway received for `phoneNumber` (its dev outbox), as a user would
 * read it off their phone. Call `since()` before the request that sends it.
 */
export function codeSentTo(phoneNumber: string, notBefore: Date): Promise<string> {
  return readCodeFromOutbox(compat.gatewayUrl, phoneNumber, { notBefore });
}

export const since = (): Date => new Date(Date.now() - 1000);

/** How many SMS the stack's gateway has received for `phoneNumber` (its dev outbox). */
export async function messagesSentTo(phoneNumber: string): Promise<number> {
  const res = await fetch(`${compat.gatewayUrl}/outbox/messages?recipient=${encodeURIComponent(phoneNumber)}`);
  if (!res.ok) throw new Error(`outbox answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as unknown[]).length;
}
