// The examples the spec shows (section 2), as the tests' shared fixtures.

export const connectionCreateExample = {
  options: {
    disable_signup: false,
    name: 'sms-gateway',
    strategy: 'sms',
    provider: 'sms_gateway',
    gateway_url: 'https://sms-gateway.example.com/deliver',
    from: '+14155550100',
    syntax: 'md_with_macros',
    template: 'Your verification code is: @@password@@',
    totp: { time_step: 300, length: 6 },
    brute_force_protection: true,
  },
  enabled_clients: ['kT3xQ9mZp2Lr8VwY'],
};

export const deliveryRequestExample = {
  recipient: '+14155550123',
  body: 'Your verification code is: 123456',
  sender: '+14155550100',
};

export const startRequestExample = {
  client_id: 'kT3xQ9mZp2Lr8VwY',
  connection: 'sms-gateway',
  phone_number: '+14155550123',
  send: 'code',
  authParams: { scope: 'openid', state: 'af0ifjsldkj' },
};

export const startResponseExample = {
  _id: '5f1c3b2a9d8e7f6a5b4c3d2e',
  phone_number: '+14155550123',
  request_language: null,
  phone_verified: false,
};

export const roTokenRequestExample = {
  client_id: 'kT3xQ9mZp2Lr8VwY',
  connection: 'sms-gateway',
  grant_type: 'password',
  username: '+14155550123',
  password: '123456',
  scope: 'openid',
  device: 'my-laptop',
};

export const roTokenResponseExample = {
  id_token: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzbXN8MSJ9.c2ln',
  access_token: 'Qa8rL2xZ',
  token_type: 'bearer',
};

export const securityDefinitionExample = {
  type: 'oauth2',
  flow: 'implicit',
  authorizationUrl: 'https://auth.example.com/authorize',
  'x-google-issuer': 'https://auth.example.com/',
  'x-google-jwks_uri': 'https://auth.example.com/.well-known/jwks.json',
  'x-google-audiences': 'https://airports.example.com',
};

export const gatewayRejectionExample = {
  code: 16,
  message: 'JWT validation failed: Missing or invalid credentials',
  details: [{ '@type': 'type.googleapis.com/google.rpc.DebugInfo', stackEntries: [], detail: 'auth' }],
};
