import {
  ConnectionCreateSchema,
  ConnectionRecordSchema,
  ConnectionUpdateSchema,
  applyConnectionOptionsPatch,
  redactConnectionOptions,
  toErrorDetails,
  type ConnectionOptions,
} from '../src';
import { connectionCreateExample } from './examples';
import { issuePaths } from './helpers';

/** The spec example with `changes` merged into its options. */
function withOptions(changes: Record<string, unknown>): unknown {
  return { ...connectionCreateExample, options: { ...connectionCreateExample.options, ...changes } };
}

function withoutOption(field: string): unknown {
  const { [field]: _removed, ...options } = connectionCreateExample.options as Record<string, unknown>;
  return { ...connectionCreateExample, options };
}

const gatewayAuthentication = {
  method: 'bearer',
  subject: 'urn:smsauth:identity',
  audience: 'urn:sms-gateway',
  secret: 'a-long-shared-secret-of-32-chars!',
};

describe('ConnectionCreateSchema', () => {
  it('accepts the connection the spec shows', () => {
    expect(ConnectionCreateSchema.parse(connectionCreateExample)).toEqual({
      ...connectionCreateExample,
      options: { ...connectionCreateExample.options, forward_req_info: false },
      is_domain_connection: false,
    });
  });

  it('applies defaults to every option the caller may leave out', () => {
    const parsed = ConnectionCreateSchema.parse({
      options: {
        name: 'sms',
        strategy: 'sms',
        provider: 'sms_gateway',
        gateway_url: 'http://localhost:4001/deliver',
        template: '@@password@@',
      },
    });
    expect(parsed).toEqual({
      is_domain_connection: false,
      options: {
        name: 'sms',
        strategy: 'sms',
        provider: 'sms_gateway',
        gateway_url: 'http://localhost:4001/deliver',
        template: '@@password@@',
        syntax: 'md_with_macros',
        totp: { time_step: 300, length: 6 },
        brute_force_protection: true,
        disable_signup: false,
        forward_req_info: false,
      },
      enabled_clients: [],
    });
  });

  it('fills in a totp field the caller left out', () => {
    const parsed = ConnectionCreateSchema.parse(withOptions({ totp: { length: 8 } }));
    expect(parsed.options.totp).toEqual({ time_step: 300, length: 8 });
  });

  it('defaults secret_base64_encoded to false', () => {
    const parsed = ConnectionCreateSchema.parse(withOptions({ gateway_authentication: gatewayAuthentication }));
    expect(parsed.options.gateway_authentication?.secret_base64_encoded).toBe(false);
  });

  it.each([true, 'true'])('accepts forward_req_info %p', (value) => {
    expect(ConnectionCreateSchema.parse(withOptions({ forward_req_info: value })).options.forward_req_info).toBe(value);
  });

  it('accepts a connection without from, since the delivery sender is optional', () => {
    expect(ConnectionCreateSchema.safeParse(withoutOption('from')).success).toBe(true);
  });

  it('accepts a name of exactly 128 characters', () => {
    expect(ConnectionCreateSchema.safeParse(withOptions({ name: 'a'.repeat(128) })).success).toBe(true);
  });

  it.each([
    ['a name with an underscore', { name: 'sms_gateway' }, ['options', 'name']],
    ['a name starting with "-"', { name: '-sms' }, ['options', 'name']],
    ['a name ending with "-"', { name: 'sms-' }, ['options', 'name']],
    ['a name longer than 128 characters', { name: 'a'.repeat(129) }, ['options', 'name']],
    ['an empty name', { name: '' }, ['options', 'name']],
    ['a strategy other than sms', { strategy: 'email' }, ['options', 'strategy']],
    ['a provider other than sms_gateway', { provider: 'twilio' }, ['options', 'provider']],
    ['a gateway_url that is not a URL', { gateway_url: 'sms-gateway' }, ['options', 'gateway_url']],
    ['a file: gateway_url', { gateway_url: 'file:///etc/passwd' }, ['options', 'gateway_url']],
    ['an ftp: gateway_url', { gateway_url: 'ftp://sms.example.com/deliver' }, ['options', 'gateway_url']],
    ['a from that is not E.164', { from: '415-555-0100' }, ['options', 'from']],
    ['a syntax Auth0 does not have', { syntax: 'handlebars' }, ['options', 'syntax']],
    ['a liquid template that never outputs the code', { syntax: 'liquid', template: 'Your code is @@password@@' }, ['options', 'template']],
    ['a liquid template longer than 4096 characters', { syntax: 'liquid', template: `{{ code }}${'x'.repeat(4096)}` }, ['options', 'template']],
    ['a webotp origin with a path', { webotp: { origin: 'https://login.example.com/login' } }, ['options', 'webotp', 'origin']],
    ['a webotp origin over http', { webotp: { origin: 'http://login.example.com' } }, ['options', 'webotp', 'origin']],
    ['a webotp origin with a port', { webotp: { origin: 'https://login.example.com:8443' } }, ['options', 'webotp', 'origin']],
    ['a webotp app hash of 10 characters', { webotp: { origin: 'https://login.example.com', app_hashes: ['FA+9qCX9VS'] } }, ['options', 'webotp', 'app_hashes', 0]],
    ['a webotp app hash outside base64', { webotp: { origin: 'https://login.example.com', app_hashes: ['FA+9qCX9VS!'] } }, ['options', 'webotp', 'app_hashes', 0]],
    ['a template without @@password@@', { template: 'Your code is: @@code@@' }, ['options', 'template']],
    ['an empty template', { template: '' }, ['options', 'template']],
    ['a totp.time_step below 30', { totp: { time_step: 29, length: 6 } }, ['options', 'totp', 'time_step']],
    ['a totp.time_step above 3600', { totp: { time_step: 3601, length: 6 } }, ['options', 'totp', 'time_step']],
    ['a fractional totp.time_step', { totp: { time_step: 300.5, length: 6 } }, ['options', 'totp', 'time_step']],
    ['a totp.length below 4', { totp: { time_step: 300, length: 3 } }, ['options', 'totp', 'length']],
    ['a totp.length above 10', { totp: { time_step: 300, length: 11 } }, ['options', 'totp', 'length']],
    ['a totp.length given as a string', { totp: { time_step: 300, length: '6' } }, ['options', 'totp', 'length']],
    ['an unknown totp field', { totp: { time_step: 300, length: 6, digits: 6 } }, ['options', 'totp']],
    ['a non-boolean brute_force_protection', { brute_force_protection: 'yes' }, ['options', 'brute_force_protection']],
    ['a non-boolean disable_signup', { disable_signup: 1 }, ['options', 'disable_signup']],
    ['forward_req_info "yes"', { forward_req_info: 'yes' }, ['options', 'forward_req_info']],
    [
      'a gateway_authentication method other than bearer',
      { gateway_authentication: { ...gatewayAuthentication, method: 'basic' } },
      ['options', 'gateway_authentication', 'method'],
    ],
    [
      'a gateway_authentication without subject',
      { gateway_authentication: { ...gatewayAuthentication, subject: undefined } },
      ['options', 'gateway_authentication', 'subject'],
    ],
    [
      'a gateway_authentication without audience',
      { gateway_authentication: { ...gatewayAuthentication, audience: undefined } },
      ['options', 'gateway_authentication', 'audience'],
    ],
    [
      'an empty gateway_authentication secret',
      { gateway_authentication: { ...gatewayAuthentication, secret: '' } },
      ['options', 'gateway_authentication', 'secret'],
    ],
    [
      'a secret marked base64 that is not base64',
      { gateway_authentication: { ...gatewayAuthentication, secret: 'not base64!', secret_base64_encoded: true } },
      ['options', 'gateway_authentication', 'secret'],
    ],
    ['a misspelt option', { tmeplate: 'Your code: @@password@@' }, ['options']],
  ])('rejects %s', (_rule, changes, path) => {
    expect(issuePaths(ConnectionCreateSchema.safeParse(withOptions(changes)))).toEqual([path]);
  });

  it.each(['name', 'strategy', 'gateway_url', 'template'])('rejects options without %s', (field) => {
    expect(issuePaths(ConnectionCreateSchema.safeParse(withoutOption(field)))).toEqual([['options', field]]);
  });

  it('takes provider sms_gateway, the only one, when options leave it out', () => {
    const result = ConnectionCreateSchema.safeParse(withoutOption('provider'));
    expect(result.success && result.data.options.provider).toBe('sms_gateway');
  });

  it('names a misspelt option in the error details', () => {
    const result = ConnectionCreateSchema.safeParse(withOptions({ tmeplate: 'x' }));
    expect(toErrorDetails(result.error?.issues ?? [])).toEqual([{ path: 'options.tmeplate', message: 'unknown field' }]);
  });

  it('rejects a body without options', () => {
    expect(issuePaths(ConnectionCreateSchema.safeParse({ enabled_clients: [] }))).toEqual([['options']]);
  });

  it('rejects enabled_clients that is not an array of client ids', () => {
    const result = ConnectionCreateSchema.safeParse({ ...connectionCreateExample, enabled_clients: 'kT3xQ9mZp2Lr8VwY' });
    expect(issuePaths(result)).toEqual([['enabled_clients']]);
  });
});

describe('ConnectionUpdateSchema and applyConnectionOptionsPatch', () => {
  const stored: ConnectionOptions = ConnectionCreateSchema.parse(
    withOptions({ gateway_authentication: gatewayAuthentication }),
  ).options;

  function apply(body: unknown) {
    const update = ConnectionUpdateSchema.parse(body);
    return applyConnectionOptionsPatch(stored, update.options ?? {});
  }

  it('changes only the options a PATCH sends, keeping the other totp field', () => {
    const result = apply({ options: { template: 'Code: @@password@@', totp: { length: 8 } } });
    expect(result).toEqual({
      success: true,
      options: { ...stored, template: 'Code: @@password@@', totp: { time_step: 300, length: 8 } },
    });
  });

  it('does not reset omitted options to their defaults', () => {
    const custom = { ...stored, brute_force_protection: false };
    const update = ConnectionUpdateSchema.parse({ options: { disable_signup: true } });
    const result = applyConnectionOptionsPatch(custom, update.options ?? {});
    expect(result.success && result.options.brute_force_protection).toBe(false);
  });

  it('accepts the unchanged name and strategy, as sent back from a GET', () => {
    expect(apply({ options: { name: stored.name, strategy: 'sms', disable_signup: true } }).success).toBe(true);
  });

  it('refuses to rename a connection, naming options.name', () => {
    const result = apply({ options: { name: 'renamed' } });
    expect(result.success).toBe(false);
    expect(!result.success && result.issues.map((issue) => issue.path)).toEqual([['options', 'name']]);
  });

  it('rejects a strategy change in the PATCH body', () => {
    expect(issuePaths(ConnectionUpdateSchema.safeParse({ options: { strategy: 'email' } }))).toEqual([
      ['options', 'strategy'],
    ]);
  });

  it('rejects a misspelt option in the PATCH body', () => {
    expect(issuePaths(ConnectionUpdateSchema.safeParse({ options: { tmeplate: 'x' } }))).toEqual([['options']]);
  });

  it('rejects a PATCH that sets a template without @@password@@', () => {
    const result = apply({ options: { template: 'hi' } });
    expect(!result.success && result.issues.map((i) => i.path)).toEqual([['options', 'template']]);
  });

  it('checks a PATCHed liquid syntax against the stored template, which has no {{ code }}', () => {
    const result = apply({ options: { syntax: 'liquid' } });
    expect(!result.success && result.issues.map((i) => i.path)).toEqual([['options', 'template']]);
  });

  it('switches to liquid when syntax and template come together, and back to the stored syntax rules otherwise', () => {
    const result = apply({ options: { syntax: 'liquid', template: 'Code: {{ code }}' } });
    expect(result.success && result.options).toMatchObject({ syntax: 'liquid', template: 'Code: {{ code }}' });
  });

  it('sets webotp with app_hashes defaulted, and removes it on null', () => {
    const set = apply({ options: { webotp: { origin: 'https://login.example.com' } } });
    expect(set.success && set.options.webotp).toEqual({ origin: 'https://login.example.com', app_hashes: [] });
    const cleared = set.success ? applyConnectionOptionsPatch(set.options, { webotp: null }) : set;
    expect(cleared.success && 'webotp' in cleared.options).toBe(false);
  });

  it('keeps the stored gateway secret when the PATCH omits it', () => {
    const result = apply({ options: { gateway_authentication: { audience: 'urn:new-gateway' } } });
    expect(result.success && result.options.gateway_authentication).toEqual({
      ...gatewayAuthentication,
      audience: 'urn:new-gateway',
      secret_base64_encoded: false,
    });
  });

  it('removes from and gateway_authentication when the PATCH sets them to null', () => {
    const result = apply({ options: { from: null, gateway_authentication: null } });
    expect(result.success && 'from' in result.options).toBe(false);
    expect(result.success && 'gateway_authentication' in result.options).toBe(false);
  });

  it('rejects new gateway authentication without a secret, naming the secret', () => {
    const { gateway_authentication: _none, ...withoutAuth } = stored;
    const result = applyConnectionOptionsPatch(withoutAuth, {
      gateway_authentication: { method: 'bearer', subject: 's', audience: 'a' },
    });
    expect(!result.success && result.issues.map((issue) => issue.path)).toEqual([
      ['options', 'gateway_authentication', 'secret'],
    ]);
  });

  it('replaces enabled_clients as a whole', () => {
    expect(ConnectionUpdateSchema.parse({ enabled_clients: ['a', 'b'] })).toEqual({ enabled_clients: ['a', 'b'] });
  });

  it('rejects an unknown top-level field such as name', () => {
    expect(ConnectionUpdateSchema.safeParse({ name: 'renamed' }).success).toBe(false);
  });
});

describe('ConnectionRecordSchema', () => {
  const options = ConnectionCreateSchema.parse(withOptions({ gateway_authentication: gatewayAuthentication })).options;
  const record = {
    id: 'con_k2P9xQ7wLm3Z',
    name: options.name,
    strategy: 'sms',
    options: redactConnectionOptions(options),
    enabled_clients: connectionCreateExample.enabled_clients,
    realms: [options.name],
    is_domain_connection: false,
    metadata: {},
  };

  it('accepts a record whose options were redacted', () => {
    expect(ConnectionRecordSchema.parse(record)).toEqual(record);
    expect(record.options.gateway_authentication).not.toHaveProperty('secret');
  });

  it('rejects a record that shows the gateway secret', () => {
    const leaky = { ...record, options };
    expect(issuePaths(ConnectionRecordSchema.safeParse(leaky))).toEqual([['options', 'gateway_authentication']]);
  });

  it('rejects an id without the con_ prefix', () => {
    expect(issuePaths(ConnectionRecordSchema.safeParse({ ...record, id: 'k2P9xQ7wLm3Z' }))).toEqual([['id']]);
  });
});
