import { mountOperations, type Operation } from '@smsauth/service-kit';
import { Router } from 'express';
import { validationFailed } from '../../domain/management/validation';
import { authenticateManagementCaller, requiredScopeOf, requireScope } from './auth';
import { authenticationMethodOperations } from './authentication-methods';
import { brandingOperations } from './branding';
import { clientGrantOperations } from './client-grants';
import { clientOperations } from './clients';
import { connectionOperations } from './connections';
import { managementWrites, type ManagementDependencies } from './context';
import { jobOperations } from './jobs';
import { logStreamOperations } from './log-streams';
import { logOperations } from './logs';
import { bodyParsersOf } from './multipart';
import { promptDefaultOperations } from './prompt-defaults';
import { resourceServerOperations } from './resource-servers';
import { roleOperations } from './roles';
import { smsEconomicsOperations } from './sms-economics';
import { statsOperations } from './stats';
import { sessionOperations } from './sessions';
import { signingKeyOperations } from './signing-keys';
import { userBlockOperations } from './user-blocks';
import { userOperations } from './users';

export type { ManagementDependencies } from './context';

/**
 * Every `/api/v2` operation, declared once per resource group (routes/management/<group>.ts):
 * the declaration validates the request, names the scope and is what the OpenAPI document shows.
 */
export function managementOperations(deps: ManagementDependencies): Operation[] {
  const write = managementWrites(deps.store, deps.clock);
  return [
    ...logOperations(deps),
    ...connectionOperations(deps, write),
    ...clientOperations(deps, write),
    ...resourceServerOperations(deps, write),
    ...clientGrantOperations(deps, write),
    ...userOperations(deps, write),
    ...sessionOperations(deps, write),
    ...authenticationMethodOperations(deps, write),
    ...userBlockOperations(deps, write),
    ...roleOperations(deps, write),
    ...statsOperations(deps),
    ...smsEconomicsOperations(deps, write),
    ...signingKeyOperations(deps),
    ...logStreamOperations(deps, write),
    ...jobOperations(deps, write),
    ...brandingOperations(deps, write),
    ...promptDefaultOperations(),
  ];
}

/** `/api/v2`: the management caller's token first, then each operation (its scope, its inputs, the domain). */
export function managementRouter(deps: ManagementDependencies, operations: readonly Operation[] = managementOperations(deps)): Router {
  const router = Router();
  router.use(authenticateManagementCaller(deps.verifier, deps.audience, deps.store));
  return mountOperations(router, operations, { guards: (operation) => [...operation.scopes!.map(requireScope), ...bodyParsersOf(operation)], invalid: validationFailed });
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
