import { mountOperations, type Operation } from '@smsauth/service-kit';
import { Router } from 'express';
import type { PasswordlessExchangeDependencies } from '../domain/oauth/passwordless-exchange';
import type { RevokeDependencies } from '../domain/oauth/revoke';
import type { StartDependencies } from '../domain/passwordless/start';
import { authorizeOperations, type AuthorizeRouterDependencies } from './authorize';
import { crossOriginOperations, type CrossOriginDependencies } from './cross-origin';
import { logoutOperations, type LogoutRouteDependencies } from './logout';
import { oauthRevokeOperations } from './oauth-revoke';
import { oauthRoOperations } from './oauth-ro';
import { oauthTokenOperations, type OAuthTokenDependencies } from './oauth-token';
import { passwordlessOperations } from './passwordless';
import { userExportOperations, type UserExportDownloadDependencies } from './user-exports';
import { userinfoOperations, type UserinfoDependencies } from './userinfo';
import { wellKnownOperations, type WellKnownDependencies } from './well-known';

// Identity's operations outside the management API (authentication, discovery, the hosted
// login), each declared once next to its route; the OpenAPI document publishes these declarations.

export interface IdentityRouteDependencies {
  wellKnown: WellKnownDependencies;
  start: StartDependencies;
  authorize: AuthorizeRouterDependencies;
  codeExchange: PasswordlessExchangeDependencies;
  token: OAuthTokenDependencies;
  revoke: RevokeDependencies;
  logout: LogoutRouteDependencies;
  userinfo: UserinfoDependencies;
  userExports: UserExportDownloadDependencies;
  crossOrigin: CrossOriginDependencies;
}

/** Every operation, in the order the app mounts them. Building them reads no dependency: handlers do. */
export function identityOperations(deps: IdentityRouteDependencies): Operation[] {
  return [
    ...wellKnownOperations(deps.wellKnown),
    ...passwordlessOperations(deps.start),
    ...authorizeOperations(deps.authorize),
    ...crossOriginOperations(deps.crossOrigin),
    ...oauthRoOperations(deps.codeExchange),
    ...oauthTokenOperations(deps.token),
    ...oauthRevokeOperations(deps.revoke),
    ...logoutOperations(deps.logout),
    ...userinfoOperations(deps.userinfo),
    ...userExportOperations(deps.userExports),
  ];
}

/** The declarations alone (no handler may run): what the docs generator and tests publish. */
export function declaredIdentityOperations(managementAudience: string): Operation[] {
  const none = {} as never;
  return identityOperations({
    wellKnown: none,
    start: none,
    authorize: none,
    codeExchange: none,
    token: { grants: none, managementAudience },
    revoke: none,
    logout: none,
    userinfo: none,
    userExports: none,
    crossOrigin: none,
  });
}

/** The router serving `operations` (each validated as it declares, answered by its handler). */
export function identityRouter(operations: readonly Operation[]): Router {
  return mountOperations(Router(), operations);
}
