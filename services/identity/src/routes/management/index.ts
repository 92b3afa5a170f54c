import { mountOperations, type Operation } from '@smsauth/service-kit';
import { Router, type Request, type Response } from 'express';
import * as logStreams from '../../domain/log-streams/management';
import * as lists from '../../domain/management/lists';
import { recordProjectionOf } from '../../domain/management/paging';
import * as signingKeys from '../../domain/management/signing-keys';
import * as userBlocks from '../../domain/management/user-blocks';
import * as users from '../../domain/management/users';
import * as managedUsers from '../../domain/management/managed-users';
import * as sessions from '../../domain/management/sessions';
import * as logs from '../../domain/logs/list';
import { managementWriteRecord, type WriteTarget } from '../../domain/logs/management-events';
import { recordEvents } from '../../domain/logs/tenant-log';
import { validationFailed } from '../../domain/management/validation';
import type { IdentityStore } from '../../store';
import { authenticateManagementCaller, requiredScopeOf, requireScope } from './auth';
import { clientGrantOperations } from './client-grants';
import { clientOperations } from './clients';
import { connectionOperations } from './connections';
import { managementCallOf, managementWrites, type ManagementDependencies } from './context';
import { resourceServerOperations } from './resource-servers';

export type { ManagementDependencies } from './context';

/** The management operations declared with the service kit (the groups not yet declared are routes below). */
export function managementOperations(deps: ManagementDependencies): Operation[] {
  const write = managementWrites(deps.store, deps.clock);
  return [
    ...connectionOperations(deps, write),
    ...clientOperations(deps, write),
    ...resourceServerOperations(deps, write),
    ...clientGrantOperations(deps, write),
  ];
}

/** `/api/v2`: thin routes over domain/management; each names the scope it needs. */
export function managementRouter(deps: ManagementDependencies, operations: readonly Operation[] = managementOperations(deps)): Router {
  const { store, keyRing, clock, logStreamRules } = deps;
  const router = Router();
  router.use(authenticateManagementCaller(deps.verifier, deps.audience));
  const can = requireScope;
  const id = (value: string | string[] | undefined) => String(value);

  const writes = managementWrites(store, clock);
  const write = <T>(req: Request, res: Response, description: string, change: (tx: IdentityStore) => Promise<T>, target?: WriteTarget | ((result: T) => WriteTarget)) =>
    writes(req, res, description, change, target, target === unblocked ? 'ublkdu' : 'sapi');
  const callOf = managementCallOf;
  const unblocked = (lifted: userBlocks.LiftedBlocks): WriteTarget => ({ userId: lifted.userId, phoneNumber: lifted.phoneNumber });
  const keyChange = (req: Request, res: Response, description: string): signingKeys.KeyChangeRecorder => async (tx, kid) => {
    await recordEvents(tx, managementWriteRecord(callOf(req, res), clock.now(), description, { id: kid }));
  };

  router.get('/logs', can('read:logs'), async (req, res) => {
    const answer = await logs.listLogs(store, req.query);
    if (answer.nextFrom !== undefined) {
      const take = typeof req.query.take === 'string' ? `&take=${encodeURIComponent(req.query.take)}` : '';
      res.links({ next: `${req.baseUrl}/logs?from=${encodeURIComponent(answer.nextFrom)}${take}` });
    }
    res.json(answer.body);
  });
  router.get('/logs/:id', can('read:logs'), async (req, res) => {
    res.json(await logs.getLog(store, id(req.params.id)));
  });
  router.get('/users/:id/logs', can('read:logs'), async (req, res) => {
    res.json((await logs.listLogs(store, req.query, id(req.params.id))).body);
  });

  // Declared operations (one declaration each: validation, scope, document), by resource group.
  mountOperations(router, operations, { guards: (operation) => operation.scopes!.map(requireScope), invalid: validationFailed });

  router.get('/users', can('read:users'), async (req, res) => {
    res.json(await lists.listUsers(store, req.query));
  });
  router.post('/users', can('create:users'), async (req, res) => {
    res.status(201).json(await write(req, res, 'Create a user', (tx) => managedUsers.createUser(tx, clock, req.body)));
  });
  router.patch('/users/:id', can('update:users'), async (req, res) => {
    res.json(await write(req, res, 'Update a user', (tx) => managedUsers.updateUser(tx, clock, id(req.params.id), req.body)));
  });
  router.get('/users/:id', can('read:users'), async (req, res) => {
    const project = recordProjectionOf(req.query);
    res.json(project(await users.getUser(store, id(req.params.id))));
  });
  router.delete('/users/:id', can('delete:users'), async (req, res) => {
    await write(req, res, 'Delete a user', (tx) => users.deleteUser(tx, id(req.params.id)), { userId: id(req.params.id) });
    res.status(204).end();
  });

  // Login sessions of the hosted login; ending one stops its single sign-on and silent authentication at once.
  router.get('/users/:id/sessions', can('read:sessions'), async (req, res) => {
    res.json(await sessions.listUserSessions(store, clock, id(req.params.id)));
  });
  router.delete('/users/:id/sessions', can('delete:sessions'), async (req, res) => {
    await write(req, res, 'Delete the sessions of a user', (tx) => sessions.deleteUserSessions(tx, id(req.params.id)), ({ userId }) => ({ userId }));
    res.status(202).end();
  });
  router.get('/sessions/:id', can('read:sessions'), async (req, res) => {
    res.json(await sessions.getSession(store, clock, id(req.params.id)));
  });
  router.delete('/sessions/:id', can('delete:sessions'), async (req, res) => {
    await write(req, res, 'Delete a session', (tx) => sessions.deleteSession(tx, id(req.params.id)), ({ userId }) => ({ userId }));
    res.status(202).end();
  });

  router.get('/user-blocks', can('read:user_blocks'), async (req, res) => {
    res.json(await userBlocks.listUserBlocks(store, clock, req.query));
  });
  router.delete('/user-blocks', can('delete:user_blocks'), async (req, res) => {
    await write(req, res, 'Unblock a user', (tx) => userBlocks.clearUserBlocks(tx, req.query), unblocked);
    res.status(204).end();
  });
  // By user id, as Auth0's SDKs call it (userBlocks.list(id) / delete(id)).
  router.get('/user-blocks/:id', can('read:user_blocks'), async (req, res) => {
    res.json(await userBlocks.listUserBlocksOfUser(store, clock, id(req.params.id)));
  });
  router.delete('/user-blocks/:id', can('delete:user_blocks'), async (req, res) => {
    await write(req, res, 'Unblock a user', (tx) => userBlocks.clearUserBlocksOfUser(tx, id(req.params.id)), unblocked);
    res.status(204).end();
  });

  router.get('/keys/signing', can('read:signing_keys'), async (_req, res) => {
    res.json(await signingKeys.listSigningKeys(store, keyRing));
  });
  router.post('/keys/signing/rotate', can('create:signing_keys'), async (req, res) => {
    res.status(201).json(await signingKeys.rotateSigningKey(keyRing, keyChange(req, res, 'Rotate the signing key')));
  });
  router.get('/keys/signing/:kid', can('read:signing_keys'), async (req, res) => {
    res.json(await signingKeys.getSigningKey(store, keyRing, id(req.params.kid)));
  });
  router.put('/keys/signing/:kid/revoke', can('update:signing_keys'), async (req, res) => {
    res.json(await signingKeys.revokeSigningKey(store, keyRing, id(req.params.kid), keyChange(req, res, 'Revoke a signing key')));
  });

  // Log streams, as Auth0's /log-streams (http sinks only); the POST answer alone shows the signing secret.
  router.get('/log-streams', can('read:log_streams'), async (_req, res) => {
    res.json(await logStreams.listLogStreams(store));
  });
  router.post('/log-streams', can('create:log_streams'), async (req, res) => {
    res.status(201).json(await write(req, res, 'Create a log stream', (tx) => logStreams.createLogStream(tx, logStreamRules, req.body)));
  });
  router.get('/log-streams/:id', can('read:log_streams'), async (req, res) => {
    res.json(await logStreams.getLogStream(store, id(req.params.id)));
  });
  router.patch('/log-streams/:id', can('update:log_streams'), async (req, res) => {
    res.json(await write(req, res, 'Update a log stream', (tx) => logStreams.updateLogStream(tx, logStreamRules, id(req.params.id), req.body)));
  });
  router.delete('/log-streams/:id', can('delete:log_streams'), async (req, res) => {
    await write(req, res, 'Delete a log stream', (tx) => logStreams.deleteLogStream(tx, id(req.params.id)));
    res.status(204).end();
  });

  return router;
}

/** One route of the management router, as declared (path relative to /api/v2), with the scope it demands. */
export interface ManagementRoute {
  method: string;
  path: string;
  scope: string | undefined;
}

interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean>; stack: Array<{ handle: unknown }> };
}

/** The router's own table of routes and scopes: the OpenAPI document's `security` is read from it. */
export function managementRoutesOf(router: Router): ManagementRoute[] {
  return (router as unknown as { stack: RouterLayer[] }).stack.flatMap(({ route }) => {
    if (!route) return [];
    const scope = route.stack.map((layer) => requiredScopeOf(layer.handle)).find((s) => s !== undefined);
    return Object.keys(route.methods)
      .filter((method) => route.methods[method])
      .map((method) => ({ method, path: route.path, scope }));
  });
}
