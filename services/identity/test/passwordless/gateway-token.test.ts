import jwt from 'jsonwebtoken';
import {
  GATEWAY_TOKEN_LIFETIME_SECONDS,
  gatewaySigningKey,
  GatewayTokenError,
  signGatewayToken,
} from '../../src/domain/passwordless/gateway-token';

const now = new Date('2025-03-01T12:00:00.000Z');
const nowSeconds = Math.floor(now.getTime() / 1000);
const settings = { subject: 'identity', audience: 'urn:sms-gateway', secret: 'gateway-shared-secret' };

function decodeHeader(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString('utf8'));
}

describe('signGatewayToken', () => {
  it('signs {sub, aud, iat, exp = iat + 5 min} with HS256 and the plain secret', () => {
    const token = signGatewayToken(settings, now);
    expect(decodeHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = jwt.verify(token, 'gateway-shared-secret', {
      algorithms: ['HS256'],
      audience: 'urn:sms-gateway',
      subject: 'identity',
      clockTimestamp: nowSeconds,
    });
    expect(claims).toEqual({ sub: 'identity', aud: 'urn:sms-gateway', iat: nowSeconds, exp: nowSeconds + 300 });
    expect(GATEWAY_TOKEN_LIFETIME_SECONDS).toBe(300);
  });

  it('produces a token that no longer verifies five minutes later', () => {
    const token = signGatewayToken(settings, now);
    expect(() => jwt.verify(token, settings.secret, { algorithms: ['HS256'], clockTimestamp: nowSeconds + 299 })).not.toThrow();
    expect(() => jwt.verify(token, settings.secret, { algorithms: ['HS256'], clockTimestamp: nowSeconds + 300 })).toThrow(
      jwt.TokenExpiredError,
    );
  });

  it('does not verify with another secret', () => {
    const token = signGatewayToken(settings, now);
    expect(() => jwt.verify(token, 'another-secret', { algorithms: ['HS256'], clockTimestamp: nowSeconds })).toThrow(
      jwt.JsonWebTokenError,
    );
  });

  it('decodes a base64url secret to bytes before signing when secret_base64_encoded is set', () => {
    const keyBytes = Buffer.from([0xfb, 0xff, 0x00, 0x10, 0x3e, 0x7f, 0x80, 0xfe, 0xff, 0x01, 0x02, 0x03]);
    const secret = keyBytes.toString('base64url'); // contains - and _
    expect(secret).toMatch(/[-_]/);
    const token = signGatewayToken({ ...settings, secret, secret_base64_encoded: true }, now);
    expect(jwt.verify(token, keyBytes, { algorithms: ['HS256'], clockTimestamp: nowSeconds })).toMatchObject({
      sub: 'identity',
      aud: 'urn:sms-gateway',
    });
    // Signed with the decoded bytes, not the text of the secret.
    expect(() => jwt.verify(token, secret, { algorithms: ['HS256'], clockTimestamp: nowSeconds })).toThrow(
      jwt.JsonWebTokenError,
    );
  });

  it('also accepts standard base64 with padding in base64 mode', () => {
    const keyBytes = Buffer.from([0xfb, 0xef, 0xbe, 0x01]);
    expect(gatewaySigningKey({ secret: keyBytes.toString('base64'), secret_base64_encoded: true })).toEqual(keyBytes);
    expect(gatewaySigningKey({ secret: keyBytes.toString('base64url'), secret_base64_encoded: true })).toEqual(keyBytes);
  });

  it('uses the UTF-8 bytes of the secret when secret_base64_encoded is false', () => {
    expect(gatewaySigningKey({ secret: 'ZGVm', secret_base64_encoded: false })).toEqual(Buffer.from('ZGVm'));
  });

  it('refuses a base64 secret that decodes to an empty key', () => {
    expect(() => signGatewayToken({ ...settings, secret: '=', secret_base64_encoded: true }, now)).toThrow(GatewayTokenError);
  });

  it('uses the current time when no clock is given', () => {
    const before = Math.floor(Date.now() / 1000);
    const claims = jwt.decode(signGatewayToken(settings)) as { iat: number; exp: number };
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    expect(claims.exp - claims.iat).toBe(300);
  });
});
