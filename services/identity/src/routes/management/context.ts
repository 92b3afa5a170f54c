import type { Clock } from '@smsauth/service-kit';
import type { Request, Response } from 'express';
import type { SessionLifetimes } from '../../domain/authorize/session';
import type * as connections from '../../domain/management/connections';
import type * as logStreams from '../../domain/log-streams/management';
import { managementWriteRecord, recordedManagementWrite, targetOfRecord, type ManagementCallContext, type WriteTarget } from '../../domain/logs/management-events';
import { recordEvents } from '../../domain/logs/tenant-log';
import type { KeyChangeRecorder } from '../../domain/management/signing-keys';
import type { KeyRing } from '../../domain/tokens/key-ring';
import type { TokenVerifier } from '../../domain/tokens/verifier';
import type { IdentityStore } from '../../store';
import type { ManagementCaller } from './auth';

export interface ManagementDependencies {
  store: IdentityStore;
  keyRing: KeyRing;
  verifier: TokenVerifier;
  clock: Clock;
  audience: string;
  /** AUTH_URL: export download links are served under it. */
  authUrl: string;
  connectionRules: connections.ConnectionRules;
  logStreamRules: logStreams.LogStreamRules;
  /** SESSION_ABSOLUTE_LIFETIME_SECONDS / SESSION_IDLE_LIFETIME_SECONDS: shown by /tenants/settings. */
  sessions: SessionLifetimes;
  /** Called after a write to the brand, texts or languages: the hosted pages' appearance cache forgets. */
  appearanceChanged?: () => void;
}

/** Who called which route: the tenant log record of a write names it. */
export function managementCallOf(req: Request, res: Response): ManagementCallContext {
  const caller = res.locals.managementCaller as ManagementCaller;
  return {
    clientId: caller.clientId,
    ...(caller.userId ? { actingUserId: caller.userId } : {}),
    method: req.method,
    path: req.baseUrl + req.path,
    ip: req.ip,
    userAgent: req.get('user-agent'),
  };
}

export type ManagementWrite = <T>(
  req: Request,
  res: Response,
  description: string,
  change: (tx: IdentityStore) => Promise<T>,
  target?: WriteTarget | ((result: T) => WriteTarget),
  type?: 'sapi' | 'ublkdu',
) => Promise<T>;

/** Every write runs in one transaction with its tenant log record (who changed which object). */
export function managementWrites(store: IdentityStore, clock: Clock): ManagementWrite {
  return (req, res, description, change, target, type = 'sapi') =>
    recordedManagementWrite(store, clock, managementCallOf(req, res), description, change, {
      target: (result) => ({
        ...(req.params.id === undefined ? {} : { id: String(req.params.id) }),
        ...targetOfRecord(result),
        ...(typeof target === 'function' ? target(result) : target),
      }),
      type,
    });
}

/** A signing key rotation or revocation records itself in the key ring's own transaction. */
export function keyChangeRecorder(clock: Clock, req: Request, res: Response, description: string): KeyChangeRecorder {
  return async (tx, kid) => {
    await recordEvents(tx, managementWriteRecord(managementCallOf(req, res), clock.now(), description, { id: kid }));
  };
}
