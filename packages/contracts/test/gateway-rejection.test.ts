import {
  GatewayRejectionSchema,
  JwtRejectionReasons,
  RPC_CODE_HTTP_STATUS,
  RpcStatusSchema,
  jwtRejection,
  methodNotFound,
  permissionDenied,
} from '../src';
import { gatewayRejectionExample } from './examples';

describe('gateway rejection bodies', () => {
  it('accepts the rejection body the spec shows', () => {
    expect(GatewayRejectionSchema.parse(gatewayRejectionExample)).toEqual(gatewayRejectionExample);
  });

  it('builds exactly the spec body for missing credentials', () => {
    expect(jwtRejection(JwtRejectionReasons.MISSING_CREDENTIALS)).toEqual(gatewayRejectionExample);
  });

  it.each(Object.values(JwtRejectionReasons).filter((reason) => typeof reason === 'string'))(
    'builds a valid rejection for "%s"',
    (reason) => {
      expect(GatewayRejectionSchema.parse(jwtRejection(reason)).message).toBe(`JWT validation failed: ${reason}`);
    },
  );

  it('names the kid of an unknown key', () => {
    expect(JwtRejectionReasons.keyNotFound('k1')).toBe('Cannot find matching key in key set for kid=k1');
  });

  it('builds the unknown-method body with detail service_control', () => {
    expect(methodNotFound()).toEqual({
      code: 5,
      message: 'Method does not exist.',
      details: [{ '@type': 'type.googleapis.com/google.rpc.DebugInfo', stackEntries: [], detail: 'service_control' }],
    });
    expect(RPC_CODE_HTTP_STATUS[5]).toBe(404);
  });

  it('builds a permission-denied body with code 7', () => {
    expect(RpcStatusSchema.parse(permissionDenied('Insufficient scope'))).toMatchObject({ code: 7, message: 'Insufficient scope' });
    expect(RPC_CODE_HTTP_STATUS[7]).toBe(403);
  });

  it('rejects a code 16 body whose message lacks the JWT prefix', () => {
    expect(GatewayRejectionSchema.safeParse({ ...gatewayRejectionExample, message: 'Unauthorized' }).success).toBe(false);
  });

  it('rejects a body with a code other than 16', () => {
    expect(GatewayRejectionSchema.safeParse(methodNotFound()).success).toBe(false);
  });
});
