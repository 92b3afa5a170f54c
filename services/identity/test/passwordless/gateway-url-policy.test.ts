import {
  assertGatewayUrlAllowed,
  checkGatewayUrlSyntax,
  createGuardedLookup,
  GatewayUrlRefusedError,
  gatewayUrlRefusedHttpError,
  nonPublicAddressClass,
  type ResolveHost,
} from '../../src/delivery/gateway-url-policy';

/** A resolver answering from a fixed table, so names can point anywhere. */
function fakeDns(table: Record<string, string[]>): ResolveHost {
  return async (hostname) => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

async function refusal(promise: Promise<unknown>): Promise<GatewayUrlRefusedError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayUrlRefusedError);
    return err as GatewayUrlRefusedError;
  }
  throw new Error('expected the gateway URL to be refused');
}

const REFUSED_ADDRESSES: Array<[string, string, string]> = [
  ['127.0.0.1', 'loopback', 'IPv4 loopback'],
  ['127.255.255.254', 'loopback', 'the rest of 127/8'],
  ['::1', 'loopback', 'IPv6 loopback'],
  ['10.0.0.1', 'private', '10/8'],
  ['172.16.0.1', 'private', '172.16/12 (start)'],
  ['172.31.255.254', 'private', '172.16/12 (end)'],
  ['192.168.1.1', 'private', '192.168/16'],
  ['fc00::1', 'uniqueLocal', 'fc00::/7 (fc)'],
  ['fd12:3456::1', 'uniqueLocal', 'fc00::/7 (fd)'],
  ['169.254.169.254', 'linkLocal', 'the cloud metadata address'],
  ['169.254.0.1', 'linkLocal', '169.254/16'],
  ['fe80::1', 'linkLocal', 'fe80::/10'],
  ['0.0.0.0', 'unspecified', 'IPv4 unspecified'],
  ['0.1.2.3', 'unspecified', '0/8'],
  ['::', 'unspecified', 'IPv6 unspecified'],
  ['224.0.0.1', 'multicast', 'IPv4 multicast'],
  ['239.255.255.250', 'multicast', 'IPv4 multicast (SSDP)'],
  ['ff02::1', 'multicast', 'IPv6 multicast'],
  ['255.255.255.255', 'broadcast', 'broadcast'],
  ['100.64.0.1', 'carrierGradeNat', 'CGNAT 100.64/10'],
  ['100.127.255.254', 'carrierGradeNat', 'CGNAT 100.64/10 (end)'],
  ['::ffff:127.0.0.1', 'loopback', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'loopback', 'IPv4-mapped loopback in hex'],
  ['::ffff:169.254.169.254', 'linkLocal', 'IPv4-mapped metadata address'],
  ['::ffff:10.0.0.1', 'private', 'IPv4-mapped private'],
  ['::ffff:0:127.0.0.1', 'loopback', 'IPv4-translated (RFC 6145) loopback'],
  ['64:ff9b::127.0.0.1', 'loopback', 'NAT64 (RFC 6052) loopback'],
  ['64:ff9b::a00:1', 'private', 'NAT64 private'],
  ['64:ff9b:1::a9fe:a9fe', 'linkLocal', 'local-use NAT64 (RFC 8215) metadata address'],
  ['::127.0.0.1', 'ipv4Compatible', 'deprecated IPv4-compatible'],
  ['2002:7f00:1::1', '6to4', '6to4'],
  ['2001::1', 'teredo', 'Teredo'],
  ['192.0.2.1', 'reserved', 'TEST-NET-1'],
  ['240.0.0.1', 'reserved', 'class E'],
  ['2001:db8::1', 'reserved', 'documentation prefix'],
];

describe('nonPublicAddressClass', () => {
  it.each(REFUSED_ADDRESSES)('classifies %s as %s (%s)', (address, addressClass) => {
    expect(nonPublicAddressClass(address)).toBe(addressClass);
  });

  it.each(['8.8.8.8', '93.184.215.14', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8'])(
    'accepts the public address %s',
    (address) => {
      expect(nonPublicAddressClass(address)).toBeNull();
    },
  );

  it('reads IPv4-compatible dotted forms as what they are, not as IPv4-mapped', () => {
    // ipaddr.js alone would parse ::8.8.8.8 as ::ffff:8.8.8.8 and call it public.
    expect(nonPublicAddressClass('::8.8.8.8')).toBe('ipv4Compatible');
    expect(nonPublicAddressClass('::0.0.0.1')).toBe('loopback');
  });

  it('classifies scoped IPv6 addresses without their zone id', () => {
    expect(nonPublicAddressClass('fe80::1%eth0')).toBe('linkLocal');
  });

  it('calls anything that is not an IP address invalid', () => {
    expect(nonPublicAddressClass('example.com')).toBe('invalid');
  });
});

describe('checkGatewayUrlSyntax', () => {
  it.each(['ftp://gateway.example/sms', 'file:///etc/passwd', 'gopher://gateway.example/', 'javascript:alert(1)'])(
    'refuses the non-http scheme of %s under both policies',
    (url) => {
      for (const policy of ['any', 'public'] as const) {
        expect(() => checkGatewayUrlSyntax(url, policy)).toThrow(expect.objectContaining({ reason: 'protocol' }));
      }
    },
  );

  it('refuses a relative or malformed URL', () => {
    expect(() => checkGatewayUrlSyntax('/sms', 'any')).toThrow(expect.objectContaining({ reason: 'invalid_url' }));
    expect(() => checkGatewayUrlSyntax('http://1.2.3.4.5/', 'any')).toThrow(
      expect.objectContaining({ reason: 'invalid_url' }),
    );
  });

  it('allows private and loopback literals under the any policy', () => {
    expect(checkGatewayUrlSyntax('http://127.0.0.1:4100/sms', 'any').port).toBe('4100');
    expect(checkGatewayUrlSyntax('http://[::1]/sms', 'any').hostname).toBe('[::1]');
  });

  it.each([
    ['http://2130706433/', 'decimal'],
    ['http://0x7f000001/', 'hex'],
    ['http://017700000001/', 'octal'],
    ['http://0177.0.0.1/', 'octal dotted'],
    ['http://0x7f.1/', 'hex shorthand'],
    ['http://127.1/', 'shorthand'],
    ['http://%31%32%37.0.0.1/', 'percent-encoded'],
  ])('refuses %s (%s 127.0.0.1, normalised by WHATWG URL parsing) under public', (url) => {
    expect(new URL(url).hostname).toBe('127.0.0.1');
    expect(() => checkGatewayUrlSyntax(url, 'public')).toThrow(expect.objectContaining({ addressClass: 'loopback' }));
  });

  it('refuses bracketed IPv6 literals by class under public', () => {
    expect(() => checkGatewayUrlSyntax('http://[::ffff:127.0.0.1]/', 'public')).toThrow(
      expect.objectContaining({ addressClass: 'loopback' }),
    );
    expect(() => checkGatewayUrlSyntax('https://[fe80::1]/', 'public')).toThrow(
      expect.objectContaining({ addressClass: 'linkLocal' }),
    );
    expect(() => checkGatewayUrlSyntax('http://0/', 'public')).toThrow(
      expect.objectContaining({ addressClass: 'unspecified' }),
    );
  });
});

describe('assertGatewayUrlAllowed', () => {
  it.each(REFUSED_ADDRESSES)('refuses a literal %s (%s) under public', async (address, addressClass) => {
    const host = address.includes(':') ? `[${address}]` : address;
    const err = await refusal(assertGatewayUrlAllowed(`https://${host}/sms`, 'public', { resolveHost: fakeDns({}) }));
    expect(err).toMatchObject({ reason: 'address', addressClass });
    expect(err.message).toContain('GATEWAY_URL_POLICY=public');
  });

  it.each(REFUSED_ADDRESSES)('refuses a host name resolving to %s (%s) under public', async (address, addressClass) => {
    const resolveHost = fakeDns({ 'gateway.example': [address] });
    const err = await refusal(assertGatewayUrlAllowed('https://gateway.example/sms', 'public', { resolveHost }));
    expect(err).toMatchObject({ reason: 'address', addressClass, address });
    expect(err.message).toBe(`host gateway.example resolves to ${address}, a ${addressClass} address, which GATEWAY_URL_POLICY=public refuses`);
  });

  it('refuses a name when any one of its addresses is private', async () => {
    const resolveHost = fakeDns({ 'gateway.example': ['93.184.215.14', '2606:4700::1', '10.1.2.3'] });
    const err = await refusal(assertGatewayUrlAllowed('https://gateway.example/sms', 'public', { resolveHost }));
    expect(err).toMatchObject({ address: '10.1.2.3', addressClass: 'private' });
  });

  it('refuses localhost through real DNS under public', async () => {
    const err = await refusal(assertGatewayUrlAllowed('http://localhost:4100/sms', 'public'));
    expect(err.addressClass).toBe('loopback');
  });

  it('refuses an unresolvable name under public', async () => {
    const err = await refusal(
      assertGatewayUrlAllowed('https://nowhere.example/sms', 'public', { resolveHost: fakeDns({}) }),
    );
    expect(err).toMatchObject({ reason: 'unresolvable', message: 'host nowhere.example could not be resolved' });
  });

  it('accepts a name whose every address is public', async () => {
    const resolveHost = fakeDns({ 'gateway.example': ['93.184.215.14', '2606:4700::1'] });
    const url = await assertGatewayUrlAllowed('https://gateway.example/sms', 'public', { resolveHost });
    expect(url.href).toBe('https://gateway.example/sms');
  });

  it('accepts a public literal without resolving anything', async () => {
    const resolveHost = jest.fn(fakeDns({}));
    await assertGatewayUrlAllowed('https://93.184.215.14/sms', 'public', { resolveHost });
    expect(resolveHost).not.toHaveBeenCalled();
  });

  it('accepts internal names and addresses under any without resolving them', async () => {
    const resolveHost = jest.fn(fakeDns({}));
    await assertGatewayUrlAllowed('http://localhost:4100/sms', 'any', { resolveHost });
    await assertGatewayUrlAllowed('http://169.254.169.254/latest', 'any', { resolveHost });
    await assertGatewayUrlAllowed('http://sms-delivery-gateway:4100/sms', 'any', { resolveHost });
    expect(resolveHost).not.toHaveBeenCalled();
  });

  it('still refuses non-http schemes under any', async () => {
    const err = await refusal(assertGatewayUrlAllowed('file:///etc/passwd', 'any'));
    expect(err.reason).toBe('protocol');
  });
});

describe('gatewayUrlRefusedHttpError', () => {
  it('is a 400 invalid_request naming options.gateway_url, like the other validation errors', () => {
    const err = gatewayUrlRefusedHttpError(new GatewayUrlRefusedError('protocol', 'must be an http: or https: URL'));
    expect(err.status).toBe(400);
    expect(err.toBody()).toEqual({
      error: 'invalid_request',
      error_description: 'options.gateway_url: must be an http: or https: URL',
      details: [{ path: 'options.gateway_url', message: 'must be an http: or https: URL' }],
    });
  });
});

describe('createGuardedLookup', () => {
  type LookupResult = { err: NodeJS.ErrnoException | null; address: unknown; family?: number };

  function lookup(resolveHost: ResolveHost, hostname: string, options: { all?: boolean; family?: number }) {
    const guarded = createGuardedLookup({ resolveHost });
    return new Promise<LookupResult>((resolve) => {
      guarded(hostname, options as never, (err, address, family) => resolve({ err, address, family }));
    });
  }

  it('hands a public address to the socket', async () => {
    const result = await lookup(fakeDns({ 'gateway.example': ['93.184.215.14'] }), 'gateway.example', {});
    expect(result).toEqual({ err: null, address: '93.184.215.14', family: 4 });
  });

  it('hands every address over when the socket asks for all of them', async () => {
    const resolveHost = fakeDns({ 'gateway.example': ['93.184.215.14', '2606:4700::1'] });
    const result = await lookup(resolveHost, 'gateway.example', { all: true });
    expect(result.err).toBeNull();
    expect(result.address).toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:4700::1', family: 6 },
    ]);
  });

  it('honours the requested address family', async () => {
    const resolveHost = fakeDns({ 'gateway.example': ['93.184.215.14', '2606:4700::1'] });
    const result = await lookup(resolveHost, 'gateway.example', { family: 6 });
    expect(result).toEqual({ err: null, address: '2606:4700::1', family: 6 });
  });

  it('refuses the connection when the name resolves to a private address', async () => {
    const result = await lookup(fakeDns({ 'gateway.example': ['192.168.0.10'] }), 'gateway.example', { all: true });
    expect(result.err).toBeInstanceOf(GatewayUrlRefusedError);
    expect(result.err).toMatchObject({ code: 'ERR_GATEWAY_URL_REFUSED', addressClass: 'private' });
  });

  it('refuses when any of the answers is private, even one of a family the socket did not ask for', async () => {
    const resolveHost = fakeDns({ 'gateway.example': ['93.184.215.14', '::1'] });
    const result = await lookup(resolveHost, 'gateway.example', { family: 4 });
    expect(result.err).toMatchObject({ addressClass: 'loopback' });
  });

  it('re-checks on every connection, defeating DNS rebinding', async () => {
    let calls = 0;
    const rebinding: ResolveHost = async () => [{ address: calls++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
    await assertGatewayUrlAllowed('https://rebind.example/sms', 'public', { resolveHost: rebinding });
    const result = await lookup(rebinding, 'rebind.example', {});
    expect(result.err).toMatchObject({ addressClass: 'loopback' });
  });

  it('passes DNS failures on to the socket', async () => {
    const result = await lookup(fakeDns({}), 'nowhere.example', {});
    expect(result.err).toMatchObject({ code: 'ENOTFOUND' });
  });
});
