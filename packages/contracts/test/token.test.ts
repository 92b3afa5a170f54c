import {
  AccessTokenClaimsSchema,
  GatewayDeliveryTokenClaimsSchema,
  IdTokenClaimsSchema,
  OAuthTokenRequestSchema,
  OAuthTokenResponseSchema,
  PASSWORDLESS_OTP_GRANT,
  RoTokenRequestSchema,
  RoTokenResponseSchema,
  UserInfoResponseSchema,
} from '../src';
import { roTokenRequestExample, roTokenResponseExample } from './examples';
import { issuePaths } from './helpers';

describe('RoTokenRequestSchema', () => {
  it('accepts the token request the spec shows', () => {
    expect(RoTokenRequestSchema.parse(roTokenRequestExample)).toEqual(roTokenRequestExample);
  });

  it('defaults scope to openid', () => {
    const { scope: _scope, ...withoutScope } = roTokenRequestExample;
    expect(RoTokenRequestSchema.parse(withoutScope).scope).toBe('openid');
  });

  it('ignores unrecognized parameters, as OAuth 2.0 requires', () => {
    expect(RoTokenRequestSchema.parse({ ...roTokenRequestExample, sso: false })).toEqual(roTokenRequestExample);
  });

  it('rejects a grant_type other than password', () => {
    expect(issuePaths(RoTokenRequestSchema.safeParse({ ...roTokenRequestExample, grant_type: 'otp' }))).toEqual([
      ['grant_type'],
    ]);
  });

  it('rejects a request without the code', () => {
    const { password: _password, ...withoutCode } = roTokenRequestExample;
    expect(issuePaths(RoTokenRequestSchema.safeParse(withoutCode))).toEqual([['password']]);
  });
});

describe('RoTokenResponseSchema', () => {
  it('accepts the token response the spec shows', () => {
    expect(RoTokenResponseSchema.parse(roTokenResponseExample)).toEqual(roTokenResponseExample);
  });

  it('rejects token_type Bearer with a capital B, which /oauth/ro does not send', () => {
    expect(RoTokenResponseSchema.safeParse({ ...roTokenResponseExample, token_type: 'Bearer' }).success).toBe(false);
  });
});

describe('OAuthTokenRequestSchema', () => {
  it.each([
    {
      grant_type: PASSWORDLESS_OTP_GRANT,
      client_id: 'c',
      username: '+14155550123',
      otp: '123456',
      realm: 'sms-gateway',
      audience: 'https://airports.example.com',
      scope: 'openid',
    },
    { grant_type: 'client_credentials', client_id: 'c', client_secret: 's', audience: 'https://api' },
    { grant_type: 'refresh_token', client_id: 'c', refresh_token: 'r' },
  ])('accepts a $grant_type request', (body) => {
    expect(OAuthTokenRequestSchema.parse(body)).toEqual(body);
  });

  it('reports an unsupported grant_type at path grant_type', () => {
    expect(issuePaths(OAuthTokenRequestSchema.safeParse({ grant_type: 'implicit', client_id: 'c' }))).toEqual([
      ['grant_type'],
    ]);
  });

  it('rejects client credentials without an audience', () => {
    const body = { grant_type: 'client_credentials', client_id: 'c', client_secret: 's' };
    expect(issuePaths(OAuthTokenRequestSchema.safeParse(body))).toEqual([['audience']]);
  });
});

describe('token responses and claims', () => {
  it('accepts an /oauth/token response', () => {
    const body = { access_token: 'a', id_token: 'i', token_type: 'Bearer', expires_in: 86400, scope: 'openid' };
    expect(OAuthTokenResponseSchema.parse(body)).toEqual(body);
  });

  it('rejects a non-integer expires_in', () => {
    const body = { access_token: 'a', token_type: 'Bearer', expires_in: 1.5 };
    expect(issuePaths(OAuthTokenResponseSchema.safeParse(body))).toEqual([['expires_in']]);
  });

  it('accepts userinfo of an SMS user', () => {
    const body = { sub: 'sms|5f1c', phone_number: '+14155550123', phone_number_verified: true };
    expect(UserInfoResponseSchema.parse(body)).toEqual(body);
  });

  it('accepts ID token claims', () => {
    const claims = {
      iss: 'https://auth.example.com/',
      sub: 'sms|5f1c',
      aud: 'kT3xQ9mZp2Lr8VwY',
      iat: 1_700_000_000,
      exp: 1_700_036_000,
      phone_number: '+14155550123',
      phone_number_verified: true,
      nonce: 'n',
    };
    expect(IdTokenClaimsSchema.parse(claims)).toEqual(claims);
  });

  it.each(['https://api', ['https://api', 'https://auth.example.com/userinfo']])(
    'accepts access token claims with aud %p',
    (aud) => {
      const claims = {
        iss: 'https://auth.example.com/',
        sub: 'c@clients',
        aud,
        azp: 'c',
        scope: 'read:airports',
        iat: 1_700_000_000,
        exp: 1_700_086_400,
        gty: 'client-credentials',
      };
      expect(AccessTokenClaimsSchema.parse(claims)).toEqual(claims);
    },
  );

  it('rejects access token claims with an empty aud list', () => {
    const claims = { iss: 'i', sub: 's', aud: [], iat: 1, exp: 2 };
    expect(issuePaths(AccessTokenClaimsSchema.safeParse(claims))).toEqual([['aud']]);
  });

  it('accepts delivery token claims', () => {
    const claims = { sub: 'urn:smsauth:identity', aud: 'urn:sms-gateway', iat: 1_700_000_000, exp: 1_700_000_300 };
    expect(GatewayDeliveryTokenClaimsSchema.parse(claims)).toEqual(claims);
  });
});
