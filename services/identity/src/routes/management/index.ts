import type { Clock } from '@smsauth/service-kit';
import { Router, type Request, type Response } from 'express';
import * as clientCredentials from '../../domain/management/client-credentials';
import * as clientGrants from '../../domain/management/client-grants';
import * as clients from '../../domain/management/clients';
import * as connections from '../../domain/management/connections';
import * as logStreams from '../../domain/log-streams/management';
import * as lists from '../../domain/management/lists';
import { recordProjectionOf } from '../../domain/management/paging';
import * as resourceServers from '../../domain/management/resource-servers';
import * as smsTemplate from '../../domain/management/sms-template';
import * as signingKeys from '../../domain/management/signing-keys';
import * as smsFraudBlocks from '../../domain/management/sms-fraud-blocks';
import * as userBlocks from '../../domain/management/user-blocks';
import * as users from '../../domain/management/users';
import * as managedUsers from '../../domain/management/managed-users';
import * as sessions from '../../domain/management/sessions';
import * as logs from '../../domain/logs/list';
import { managementWriteRecord, recordedManagementWrite, targetOfRecord, type ManagementCallContext, type WriteTarget } from '../../domain/logs/management-events';
import { recordEvents } from '../../domain/logs/tenant-log';
import type { KeyRing } from '../../domain/tokens/key-ring';
import type { TokenVerifier } from '../../domain/tokens/verifier';
import type { IdentityStore } from '../../store';
import { authenticateManagementCaller, requiredScopeOf, requireScope, type ManagementCaller } from './auth';
import { mountAuthenticationMethodRoutes } from './authentication-methods';

export interface ManagementDependencies {
  store: IdentityStore;
  keyRing: KeyRing;
  verifier: TokenVerifier;
  clock: Clock;
  audience: string;
  connectionRules: connections.ConnectionRules;
  logStreamRules: logStreams.LogStreamRules;
}

/** `/api/v2`: thin routes over domain/management; each names the scope it needs. */
export function managementRouter(deps: ManagementDependencies): Router {
  const { store, keyRing, clock, connectionRules: rules, logStreamRules } = deps;
  const router = Router();
  router.use(authenticateManagementCaller(deps.verifier, deps.audience));
  const can = requireScope;
  const id = (value: string | string[] | undefined) => String(value);

  // Every write runs in one transaction with its tenant log record (who changed which object).
  const callOf = (req: Request, res: Response): ManagementCallContext => ({
    clientId: (res.locals.managementCaller as ManagementCaller).clientId,
    method: req.method,
    path: req.baseUrl + req.path,
    ip: req.ip,
    userAgent: req.get('user-agent'),
  });
  const write = <T>(req: Request, res: Response, description: string, change: (tx: IdentityStore) => Promise<T>, target?: WriteTarget | ((result: T) => WriteTarget)) =>
    recordedManagementWrite(store, clock, callOf(req, res), description, change, {
      target: (result) => ({
        ...(req.params.id === undefined ? {} : { id: id(req.params.id) }),
        ...targetOfRecord(result),
        ...(typeof target === 'function' ? target(result) : target),
      }),
      type: target === unblocked ? 'ublkdu' : 'sapi',
    });
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

  router.get('/connections', can('read:connections'), async (req, res) => {
    res.json(await lists.listConnections(store, req.query));
  });
  router.post('/connections', can('create:connections'), async (req, res) => {
    res.status(201).json(await write(req, res, 'Create a connection', (tx) => connections.createConnection(tx, rules, req.body)));
  });
  router.get('/connections/:id', can('read:connections'), async (req, res) => {
    const project = recordProjectionOf(req.query);
    res.json(project(connections.toConnectionRecord(await connections.getConnection(store, id(req.params.id)))));
  });
  router.patch('/connections/:id', can('update:connections'), async (req, res) => {
    res.json(await write(req, res, 'Update a connection', (tx) => connections.updateConnection(tx, rules, id(req.params.id), req.body)));
  });
  // Renders without saving anything, so reading connections is enough.
  router.post('/connections/:id/sms-template/test', can('read:connections'), async (req, res) => {
    res.json(await smsTemplate.testSmsTemplate(store, id(req.params.id), req.body));
  });
  router.delete('/connections/:id', can('delete:connections'), async (req, res) => {
    await write(req, res, 'Delete a connection', (tx) => connections.deleteConnection(tx, id(req.params.id)));
    res.status(204).end();
  });

  // The SMS fraud guard's blocked prefixes (domain/sms-policy), as a sub-resource of the connection.
  router.get('/connections/:id/sms-fraud-blocks', can('read:connections'), async (req, res) => {
    res.json(await smsFraudBlocks.listSmsFraudBlocks(store, id(req.params.id), clock.now()));
  });
  router.delete('/connections/:id/sms-fraud-blocks/:prefix', can('update:connections'), async (req, res) => {
    await smsFraudBlocks.liftSmsFraudBlock(store, id(req.params.id), id(req.params.prefix), clock.now());
    res.status(204).end();
  });

  router.get('/clients', can('read:clients'), async (req, res) => {
    res.json(await lists.listClients(store, req.query));
  });
  router.post('/clients', can('create:clients'), async (req, res) => {
    res.status(201).json(await write(req, res, 'Create a client', (tx) => clients.createClient(tx, req.body)));
  });
  router.get('/clients/:id', can('read:clients'), async (req, res) => {
    const project = recordProjectionOf(req.query);
    res.json(project(await clients.clientRecordOf(store, await clients.getClient(store, id(req.params.id)))));
  });
  router.patch('/clients/:id', can('update:clients'), async (req, res) => {
    res.json(await write(req, res, 'Update a client', (tx) => clients.updateClient(tx, id(req.params.id), req.body)));
  });
  router.post('/clients/:id/rotate-secret', can('update:clients'), async (req, res) => {
    res.json(await write(req, res, 'Rotate a client secret', (tx) => clients.rotateClientSecret(tx, id(req.params.id))));
  });
  router.delete('/clients/:id', can('delete:clients'), async (req, res) => {
    await write(req, res, 'Delete a client', (tx) => clients.deleteClient(tx, id(req.params.id)));
    res.status(204).end();
  });
  // private_key_jwt public keys, as Auth0's /clients/{id}/credentials.
  router.get('/clients/:id/credentials', can('read:client_credentials'), async (req, res) => {
    res.json(await clientCredentials.listClientCredentials(store, id(req.params.id)));
  });
  router.post('/clients/:id/credentials', can('create:client_credentials'), async (req, res) => {
    res.status(201).json(await write(req, res, 'Create a client credential', (tx) => clientCredentials.createClientCredential(tx, id(req.params.id), req.body)));
  });
  router.get('/clients/:id/credentials/:credential_id', can('read:client_credentials'), async (req, res) => {
    res.json(await clientCredentials.getClientCredential(store, id(req.params.id), id(req.params.credential_id)));
  });
  router.patch('/clients/:id/credentials/:credential_id', can('update:client_credentials'), async (req, res) => {
    res.json(await write(req, res, 'Update a client credential', (tx) => clientCredentials.updateClientCredential(tx, id(req.params.id), id(req.params.credential_id), req.body)));
  });
  router.delete('/clients/:id/credentials/:credential_id', can('delete:client_credentials'), async (req, res) => {
    await write(req, res, 'Delete a client credential', (tx) => clientCredentials.deleteClientCredential(tx, id(req.params.id), id(req.params.credential_id)));
    res.status(204).end();
  });

  router.get('/resource-servers', can('read:resource_servers'), async (req, res) => {
    res.json(await lists.listResourceServers(store, req.query));
  });
  router.post('/resource-servers', can('create:resource_servers'), async (req, res) => {
    res.status(201).json(await write(req, res, 'Create a resource server', (tx) => resourceServers.createResourceServer(tx, req.body)));
  });
  router.get('/resource-servers/:id', can('read:resource_servers'), async (req, res) => {
    const project = recordProjectionOf(req.query);
    res.json(project(resourceServers.toResourceServerRecord(await resourceServers.getResourceServer(store, id(req.params.id)))));
  });
  router.patch('/resource-servers/:id', can('update:resource_servers'), async (req, res) => {
    res.json(await write(req, res, 'Update a resource server', (tx) => resourceServers.updateResourceServer(tx, id(req.params.id), req.body)));
  });
  router.delete('/resource-servers/:id', can('delete:resource_servers'), async (req, res) => {
    await write(req, res, 'Delete a resource server', (tx) => resourceServers.deleteResourceServer(tx, id(req.params.id)));
    res.status(204).end();
  });

  router.get('/client-grants', can('read:client_grants'), async (req, res) => {
    res.json(await lists.listClientGrants(store, req.query));
  });
  router.post('/client-grants', can('create:client_grants'), async (req, res) => {
    res.status(201).json(await write(req, res, 'Create a client grant', (tx) => clientGrants.createClientGrant(tx, req.body)));
  });
  router.get('/client-grants/:id', can('read:client_grants'), async (req, res) => {
    res.json(clientGrants.toClientGrantRecord(await clientGrants.getClientGrant(store, id(req.params.id))));
  });
  router.patch('/client-grants/:id', can('update:client_grants'), async (req, res) => {
    res.json(await write(req, res, 'Update a client grant', (tx) => clientGrants.updateClientGrant(tx, id(req.params.id), req.body)));
  });
  router.delete('/client-grants/:id', can('delete:client_grants'), async (req, res) => {
    await write(req, res, 'Delete a client grant', (tx) => clientGrants.deleteClientGrant(tx, id(req.params.id)));
    res.status(204).end();
  });

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
  // A user's passkeys (Auth0's authentication methods): routes/management/authentication-methods.ts.
  mountAuthenticationMethodRoutes(router, store, write);
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
