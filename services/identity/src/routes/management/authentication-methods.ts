import type { Request, Response, Router } from 'express';
import * as authenticationMethods from '../../domain/management/authentication-methods';
import type { IdentityStore } from '../../store';
import { requireScope } from './auth';

/** How the management router records a write (one transaction with its tenant log record). */
export type RecordedWrite = <T>(
  req: Request,
  res: Response,
  description: string,
  change: (tx: IdentityStore) => Promise<T>,
  target?: (result: T) => { userId?: string },
) => Promise<T>;

/**
 * A user's passkeys, as Auth0's authentication methods (`type: passkey`): read with read:users,
 * deleted with update:users (deleting one changes the user's sign-in, not the user).
 */
export function mountAuthenticationMethodRoutes(router: Router, store: IdentityStore, write: RecordedWrite): void {
  router.get('/users/:id/authentication-methods', requireScope('read:users'), async (req, res) => {
    res.json(await authenticationMethods.listAuthenticationMethods(store, String(req.params.id)));
  });
  router.get('/users/:id/authentication-methods/:method_id', requireScope('read:users'), async (req, res) => {
    res.json(await authenticationMethods.getAuthenticationMethod(store, String(req.params.id), String(req.params.method_id)));
  });
  router.delete('/users/:id/authentication-methods/:method_id', requireScope('update:users'), async (req, res) => {
    await write(
      req,
      res,
      'Delete an authentication method of a user',
      (tx) => authenticationMethods.deleteAuthenticationMethod(tx, String(req.params.id), String(req.params.method_id)),
      ({ userId }) => ({ userId }),
    );
    res.status(204).end();
  });
}
