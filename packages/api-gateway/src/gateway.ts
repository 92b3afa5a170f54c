import type { OpenApi2Document } from '@smsauth/contracts';
import { systemClock, type Clock, type Lifecycle, type Logger } from '@smsauth/service-kit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Registry } from 'prom-client';
import { authenticate, type AuthResult } from './authenticate';
import { compileDocument, loadOpenApiDocument, OpenApiDocumentError, type GatewayOperation } from './document';
import { createGatewayMetrics } from './gateway-metrics';
import { JwksKeyStore } from './jwks-key-store';
import { JwtVerifier } from './jwt-verifier';
import { operationNotFound } from './rejection';
import { VerifiedTokenCache } from './token-cache';

/** Header carrying the verified payload to the handler; a client-sent copy never gets through. */
export const USER_INFO_HEADER = 'x-endpoint-api-userinfo';

export interface ApiGatewayOptions {
  /** OpenAPI 2.0 document: YAML or JSON text, or the parsed object. */
  document: string | OpenApi2Document | Record<string, unknown>;
  /** One handler per operationId of the document. */
  handlers: Record<string, RequestHandler>;
  logger: Logger;
  /** The app's registry; the gateway registers its counters on it. */
  metrics: Registry;
  /** When given, a `jwks` readiness check is registered on it. */
  lifecycle?: Lifecycle;
  /** Where the time comes from (default: the system clock); tests inject one to move time. */
  clock?: Clock;
  /** Total time for one JWKS fetch (default 5 s). */
  fetchTimeoutMs?: number;
  /** JWKS cache age before a background refresh (default 5 min). */
  jwksMaxAgeMs?: number;
  /** Minimum time between two JWKS fetches of one URI (default 1 s). */
  jwksMinRefetchIntervalMs?: number;
  /** JWKS fetches allowed in any 60 s (default 4): bounds unknown-kid storms. */
  jwksMaxFetchesPerMinute?: number;
  /** Verified-token cache entries (default 10,000). */
  tokenCacheSize?: number;
  /** `exp`/`nbf` leeway in seconds (default 60). */
  clockToleranceSec?: number;
}

/** One middleware (not a Router: a router's dispatch would cost every request a second pass through Express's layer machinery for a single layer). */
export type ApiGatewayMiddleware = RequestHandler & {
  operations: readonly GatewayOperation[];
  /** Resolves when every JWKS has given at least one key; throws naming the failing one. */
  checkReadiness(): Promise<void>;
};

function removeUserInfoHeader(req: Request): void {
  // req.headers is built from rawHeaders: a name absent there is absent from both.
  if (!(USER_INFO_HEADER in req.headers)) return;
  delete req.headers[USER_INFO_HEADER];
  const raw = req.rawHeaders;
  for (let index = raw.length - 2; index >= 0; index -= 2) {
    if (raw[index]?.toLowerCase() === USER_INFO_HEADER) raw.splice(index, 2);
  }
}

function bindHandlers(operations: readonly GatewayOperation[], handlers: Record<string, RequestHandler>, logger: Logger) {
  const missing = operations.filter((operation) => typeof handlers[operation.operationId] !== 'function');
  if (missing.length > 0) {
    throw new OpenApiDocumentError(`no handler for operationId ${missing.map((operation) => `"${operation.operationId}"`).join(', ')}`);
  }
  const unused = Object.keys(handlers).filter((id) => !operations.some((operation) => operation.operationId === id));
  if (unused.length > 0) logger.warn({ operationIds: unused }, 'handlers without an operation in the OpenAPI document');
}

/**
 * An Express middleware enforcing an OpenAPI 2.0 document the way the reference cloud API proxy
 * does: routing from `paths` (404 code 5 otherwise) and JWT validation per operation.
 */
export function createApiGateway(options: ApiGatewayOptions): ApiGatewayMiddleware {
  const { logger, handlers } = options;
  const clock = options.clock ?? systemClock;
  const { operations, schemes } = compileDocument(loadOpenApiDocument(options.document));
  bindHandlers(operations, handlers, logger);

  const metrics = createGatewayMetrics(options.metrics);
  const keyStores = new Map<string, JwksKeyStore>();
  for (const scheme of schemes) {
    if (keyStores.has(scheme.jwksUri)) continue;
    keyStores.set(
      scheme.jwksUri,
      new JwksKeyStore({
        jwksUri: scheme.jwksUri,
        clock,
        logger,
        metrics,
        fetchTimeoutMs: options.fetchTimeoutMs ?? 5_000,
        maxAgeMs: options.jwksMaxAgeMs ?? 5 * 60_000,
        minRefetchIntervalMs: options.jwksMinRefetchIntervalMs ?? 1_000,
        maxFetchesPerMinute: options.jwksMaxFetchesPerMinute ?? 4,
      }),
    );
  }
  const verifier = new JwtVerifier({
    keyStores,
    cache: new VerifiedTokenCache(clock, options.tokenCacheSize ?? 10_000),
    clock,
    metrics,
    clockToleranceSec: options.clockToleranceSec ?? 60,
  });
  // Warm the key sets now; a failure only shows in readiness and in rejections.
  for (const store of keyStores.values()) void store.refresh();

  const allowed = metrics.auth.labels('allowed');
  // Synchronous whenever authentication is (a cached token, a refusal before the signature): no promise per request.
  const gateway: RequestHandler = (req, res, next) => {
    removeUserInfoHeader(req);
    const found = findOperation(operations, req.method, req.path);
    if (!found) return next(operationNotFound());
    const { operation, params } = found;
    res.locals.metricsRoute = req.baseUrl === '' ? operation.route : `${req.baseUrl}${operation.route}`;
    req.params = params;
    if (operation.security.length === 0) return callHandler(operation, req, res, next);
    const result = authenticate(req, operation, verifier);
    if (result instanceof Promise) return result.then((settled) => afterAuthentication(settled, operation, req, res, next));
    return afterAuthentication(result, operation, req, res, next);
  };

  function afterAuthentication(result: AuthResult, operation: GatewayOperation, req: Request, res: Response, next: NextFunction): unknown {
    if (!result.ok) {
      metrics.auth.inc({ outcome: result.outcome });
      logger.info(
        { requestId: res.getHeader('x-request-id'), operationId: operation.operationId, outcome: result.outcome, reason: result.reason },
        'gateway rejected the call',
      );
      return next(result.error);
    }
    allowed.inc();
    if (result.claims) {
      req.auth = result.claims;
      req.headers[USER_INFO_HEADER] = result.payloadSegment;
    }
    return callHandler(operation, req, res, next);
  }

  function callHandler(operation: GatewayOperation, req: Request, res: Response, next: NextFunction): unknown {
    const handler = handlers[operation.operationId] as RequestHandler;
    return handler(req, res, next);
  }

  const readiness = async (): Promise<void> => {
    await Promise.all([...keyStores.values()].map((store) => store.checkReady()));
  };
  options.lifecycle?.addReadinessCheck('jwks', readiness);
  return Object.assign(gateway, { operations, checkReadiness: readiness });
}

function findOperation(operations: readonly GatewayOperation[], method: string, path: string) {
  for (const operation of operations) {
    if (operation.method !== method) continue;
    const params = operation.path.match(path);
    if (params) return { operation, params };
  }
  return undefined;
}
