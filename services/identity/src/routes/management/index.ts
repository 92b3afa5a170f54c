import type { Clock } from '@smsauth/service-kit';
import { Router } from 'express';
import * as clientCredentials from '../../domain/management/client-credentials';
import * as clientGrants from '../../domain/management/client-grants';
import * as clients from '../../domain/management/clients';
import * as connections from '../../domain/management/connections';
import * as lists from '../../domain/management/lists';
import { recordProjectionOf } from '../../domain/management/paging';
import * as resourceServers from '../../domain/management/resource-servers';
import * as smsTemplate from '../../domain/management/sms-template';
import * as signingKeys from '../../domain/management/signing-keys';
import * as smsFraudBlocks from '../../domain/management/sms-fraud-blocks';
import * as userBlocks from '../../domain/management/user-blocks';
import * as users from '../../domain/management/users';
import * as managedUsers from '../../domain/management/managed-users';
import type { KeyRing } from '../../domain/tokens/key-ring';
import type { TokenVerifier } from '../../domain/tokens/verifier';
import type { IdentityStore } from '../../store';
import { authenticateManagementCaller, requiredScopeOf, requireScope } from './auth';

export interface ManagementDependencies {
  store: IdentityStore;
  keyRing: KeyRing;
  verifier: TokenVerifier;
  clock: Clock;
  audience: string;
  connectionRules: connections.ConnectionRules;
}

/** `/api/v2`: thin routes over domain/management; each names the scope it needs. */
export function managementRouter(deps: ManagementDependencies): Router {
  const { store, keyRing, clock, connectionRules: rules } = deps;
  const router = Router();
  router.use(authenticateManagementCaller(deps.verifier, deps.audience));
  const can = requireScope;
  const id = (value: string | string[] | undefined) => String(value);

  router.get('/connections', can('read:connections'), async (req, res) => {
    res.json(await lists.listConnections(store, req.query));
  });
  router.post('/connections', can('create:connections'), async (req, res) => {
    res.status(201).json(await connections.createConnection(store, rules, req.body));
  });
  router.get('/connections/:id', can('read:connections'), async (req, res) => {
    const project = recordProjectionOf(req.query);
    res.json(project(connections.toConnectionRecord(await connections.getConnection(store, id(req.params.id)))));
  });
  router.patch('/connections/:id', can('update:connections'), async (req, res) => {
    res.json(await connections.updateConnection(store, rules, id(req.params.id), req.body));
  });
  // Renders without saving anything, so reading connections is enough.
  router.post('/connections/:id/sms-template/test', can('read:connections'), async (req, res) => {
    res.json(await smsTemplate.testSmsTemplate(store, id(req.params.id), req.body));
  });
  router.delete('/connections/:id', can('delete:connections'), async (req, res) => {
    await connections.deleteConnection(store, id(req.params.id));
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
    res.status(201).json(await clients.createClient(store, req.body));
  });
  router.get('/clients/:id', can('read:clients'), async (req, res) => {
    const project = recordProjectionOf(req.query);
    res.json(project(await clients.clientRecordOf(store, await clients.getClient(store, id(req.params.id)))));
  });
  router.patch('/clients/:id', can('update:clients'), async (req, res) => {
    res.json(await clients.updateClient(store, id(req.params.id), req.body));
  });
  router.post('/clients/:id/rotate-secret', can('update:clients'), async (req, res) => {
    res.json(await clients.rotateClientSecret(store, id(req.params.id)));
  });
  router.delete('/clients/:id', can('delete:clients'), async (req, res) => {
    await clients.deleteClient(store, id(req.params.id));
    res.status(204).end();
  });
  // private_key_jwt public keys, as Auth0's /clients/{id}/credentials.
  router.get('/clients/:id/credentials', can('read:client_credentials'), async (req, res) => {
    res.json(await clientCredentials.listClientCredentials(store, id(req.params.id)));
  });
  router.post('/clients/:id/credentials', can('create:client_credentials'), async (req, res) => {
    res.status(201).json(await clientCredentials.createClientCredential(store, id(req.params.id), req.body));
  });
  router.get('/clients/:id/credentials/:credential_id', can('read:client_credentials'), async (req, res) => {
    res.json(await clientCredentials.getClientCredential(store, id(req.params.id), id(req.params.credential_id)));
  });
  router.patch('/clients/:id/credentials/:credential_id', can('update:client_credentials'), async (req, res) => {
    res.json(await clientCredentials.updateClientCredential(store, id(req.params.id), id(req.params.credential_id), req.body));
  });
  router.delete('/clients/:id/credentials/:credential_id', can('delete:client_credentials'), async (req, res) => {
    await clientCredentials.deleteClientCredential(store, id(req.params.id), id(req.params.credential_id));
    res.status(204).end();
  });

  router.get('/resource-servers', can('read:resource_servers'), async (req, res) => {
    res.json(await lists.listResourceServers(store, req.query));
  });
  router.post('/resource-servers', can('create:resource_servers'), async (req, res) => {
    res.status(201).json(await resourceServers.createResourceServer(store, req.body));
  });
  router.get('/resource-servers/:id', can('read:resource_servers'), async (req, res) => {
    const project = recordProjectionOf(req.query);
    res.json(project(resourceServers.toResourceServerRecord(await resourceServers.getResourceServer(store, id(req.params.id)))));
  });
  router.patch('/resource-servers/:id', can('update:resource_servers'), async (req, res) => {
    res.json(await resourceServers.updateResourceServer(store, id(req.params.id), req.body));
  });
  router.delete('/resource-servers/:id', can('delete:resource_servers'), async (req, res) => {
    await resourceServers.deleteResourceServer(store, id(req.params.id));
    res.status(204).end();
  });

  router.get('/client-grants', can('read:client_grants'), async (req, res) => {
    res.json(await lists.listClientGrants(store, req.query));
  });
  router.post('/client-grants', can('create:client_grants'), async (req, res) => {
    res.status(201).json(await clientGrants.createClientGrant(store, req.body));
  });
  router.get('/client-grants/:id', can('read:client_grants'), async (req, res) => {
    res.json(clientGrants.toClientGrantRecord(await clientGrants.getClientGrant(store, id(req.params.id))));
  });
  router.patch('/client-grants/:id', can('update:client_grants'), async (req, res) => {
    res.json(await clientGrants.updateClientGrant(store, id(req.params.id), req.body));
  });
  router.delete('/client-grants/:id', can('delete:client_grants'), async (req, res) => {
    await clientGrants.deleteClientGrant(store, id(req.params.id));
    res.status(204).end();
  });

  router.get('/users', can('read:users'), async (req, res) => {
    res.json(await lists.listUsers(store, req.query));
  });
  router.post('/users', can('create:users'), async (req, res) => {
    res.status(201).json(await managedUsers.createUser(store, clock, req.body));
  });
  router.patch('/users/:id', can('update:users'), async (req, res) => {
    res.json(await managedUsers.updateUser(store, clock, id(req.params.id), req.body));
  });
  router.get('/users/:id', can('read:users'), async (req, res) => {
    const project = recordProjectionOf(req.query);
    res.json(project(await users.getUser(store, id(req.params.id))));
  });
  router.delete('/users/:id', can('delete:users'), async (req, res) => {
    await users.deleteUser(store, id(req.params.id));
    res.status(204).end();
  });

  router.get('/user-blocks', can('read:user_blocks'), async (req, res) => {
    res.json(await userBlocks.listUserBlocks(store, clock, req.query));
  });
  router.delete('/user-blocks', can('delete:user_blocks'), async (req, res) => {
    await userBlocks.clearUserBlocks(store, req.query);
    res.status(204).end();
  });
  // By user id, as Auth0's SDKs call it (userBlocks.list(id) / delete(id)).
  router.get('/user-blocks/:id', can('read:user_blocks'), async (req, res) => {
    res.json(await userBlocks.listUserBlocksOfUser(store, clock, id(req.params.id)));
  });
  router.delete('/user-blocks/:id', can('delete:user_blocks'), async (req, res) => {
    await userBlocks.clearUserBlocksOfUser(store, id(req.params.id));
    res.status(204).end();
  });

  router.get('/keys/signing', can('read:signing_keys'), async (_req, res) => {
    res.json(await signingKeys.listSigningKeys(store, keyRing));
  });
  router.post('/keys/signing/rotate', can('create:signing_keys'), async (_req, res) => {
    res.status(201).json(await signingKeys.rotateSigningKey(keyRing));
  });
  router.get('/keys/signing/:kid', can('read:signing_keys'), async (req, res) => {
    res.json(await signingKeys.getSigningKey(store, keyRing, id(req.params.kid)));
  });
  router.put('/keys/signing/:kid/revoke', can('update:signing_keys'), async (req, res) => {
    res.json(await signingKeys.revokeSigningKey(store, keyRing, id(req.params.kid)));
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
