import { z } from 'zod';

const DEBUG_INFO_TYPE = 'type.googleapis.com/google.rpc.DebugInfo';
const JWT_REJECTION_PREFIX = 'JWT validation failed: ';

/** google.rpc.Status codes the gateway answers with. */
export const RpcCodes = { NOT_FOUND: 5, PERMISSION_DENIED: 7, UNAUTHENTICATED: 16 } as const;

/** HTTP status that goes with each RpcCodes value. */
export const RPC_CODE_HTTP_STATUS: Readonly<Record<number, number>> = { 5: 404, 7: 403, 16: 401 };

export const RpcDebugInfoSchema = z.object({
  '@type': z.string(),
  stackEntries: z.array(z.string()),
  detail: z.string(),
});
export type RpcDebugInfo = z.infer<typeof RpcDebugInfoSchema>;

/** google.rpc.Status as JSON: the body of every gateway rejection. */
export const RpcStatusSchema = z.object({
  code: z.int(),
  message: z.string(),
  details: z.array(RpcDebugInfoSchema),
});
export type RpcStatus = z.infer<typeof RpcStatusSchema>;

/** 2.8: a rejected or missing JWT. */
export const GatewayRejectionSchema = RpcStatusSchema.extend({
  code: z.literal(RpcCodes.UNAUTHENTICATED),
  message: z.string().startsWith(JWT_REJECTION_PREFIX),
});
export type GatewayRejection = z.infer<typeof GatewayRejectionSchema>;

/** Text after `JWT validation failed: `, one per cause, worded as the reference gateway does. */
export const JwtRejectionReasons = {
  MISSING_CREDENTIALS: 'Missing or invalid credentials',
  ISSUER_NOT_ALLOWED: 'Issuer not allowed',
  AUDIENCE_NOT_ALLOWED: 'Audience not allowed',
  /** Expired or not yet valid. */
  TIME_CONSTRAINT_FAILURE: 'TIME_CONSTRAINT_FAILURE',
  SIGNATURE_FAILED: 'JWT signature verification failed.',
  BAD_FORMAT: 'Bad JWT format',
  UNABLE_TO_FETCH_KEY: 'Unable to fetch verification key',
  keyNotFound: (kid: string): string => `Cannot find matching key in key set for kid=${kid}`,
} as const;

export function rpcStatus(code: number, message: string, detail: string): RpcStatus {
  return { code, message, details: [{ '@type': DEBUG_INFO_TYPE, stackEntries: [], detail }] };
}

export function jwtRejection(reason: string): GatewayRejection {
  return rpcStatus(RpcCodes.UNAUTHENTICATED, `${JWT_REJECTION_PREFIX}${reason}`, 'auth') as GatewayRejection;
}

/** Unknown path or method. */
export function methodNotFound(): RpcStatus {
  return rpcStatus(RpcCodes.NOT_FOUND, 'Method does not exist.', 'service_control');
}

export function permissionDenied(message: string): RpcStatus {
  return rpcStatus(RpcCodes.PERMISSION_DENIED, message, 'auth');
}
