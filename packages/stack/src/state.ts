import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Secrets the local stack generates once and reuses, so restarts keep the same admin client
 * and gateway secret. The file is created with mode 0600 next to the identity database.
 */
export interface StackState {
  adminClientId: string;
  adminClientSecret: string;
  gatewayAuthSecret: string;
  /** Identity's KEY_ENCRYPTION_SECRET (secrets it stores are sealed with it). */
  keyEncryptionSecret: string;
  m2mClientId?: string;
  /** The `Demo M2M` client's secret, which the demo tenant file gives it (DEMO_M2M_CLIENT_SECRET). */
  m2mClientSecret: string;
  demoClientId?: string;
}

export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function loadOrCreateState(file: string, env: Record<string, string | undefined> = process.env): StackState {
  const stored: Partial<StackState> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const state: StackState = {
    ...stored,
    adminClientId: env.ADMIN_CLIENT_ID ?? stored.adminClientId ?? `admin_${randomSecret(12)}`,
    adminClientSecret: env.ADMIN_CLIENT_SECRET ?? stored.adminClientSecret ?? randomSecret(32),
    gatewayAuthSecret: stored.gatewayAuthSecret ?? randomSecret(32),
    keyEncryptionSecret: stored.keyEncryptionSecret ?? randomSecret(32),
    m2mClientSecret: stored.m2mClientSecret ?? randomSecret(32),
  };
  saveState(file, state);
  return state;
}

export function saveState(file: string, state: StackState): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}
