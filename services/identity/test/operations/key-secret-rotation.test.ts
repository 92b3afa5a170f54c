import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicKey, randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import pg from 'pg';
import { RecordingServer } from '@smsauth/test-support';
import { runCommand } from '../../src/cli-commands';
import { SEALED_COLUMNS, secretKeyId } from '../../src/store';
import { adminToken, connectionBody, describeWithPostgres, dropSchema, startTestIdentity, testConfig, uniqueSchema, type TestIdentity } from '../helpers';
import { ISSUER, listen } from '../passwordless/flow-harness';

/*
 * The rotation drill of docs/production.md ("Rotating KEY_ENCRYPTION_SECRET"), step by step, on
 * two replicas of identity sharing one PostgreSQL schema while logins run through them without a
 * pause: every login starts on one replica and completes on the other, so a value sealed by
 * either must open on both at every moment. Replicas are replaced one at a time, as a rolling
 * restart does: the new one joins, the old one leaves once its requests are done.
 */
describeWithPostgres('Rotating KEY_ENCRYPTION_SECRET on two replicas under traffic', (databaseUrl) => {
  const schema = uniqueSchema('key_rotation');
  const OLD = randomBytes(24).toString('base64url');
  const NEW = randomBytes(24).toString('base64url');
  const shared = { DATABASE_URL: databaseUrl, PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: '1000000' };
  const gateway = new Map<string, string>();
  let gatewayServer: RecordingServer;

  interface Replica {
    identity: TestIdentity;
    server: Server;
    url: string;
    inFlight: number;
  }
  const replicas: Replica[] = [];

  async function startReplica(secrets: Record<string, string>): Promise<Replica> {
    const identity = await startTestIdentity({ ...shared, ...secrets }, { schema });
    const server = await listen(identity.app);
    return { identity, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, inFlight: 0 };
  }

  async function stopReplica(replica: Replica): Promise<void> {
    // Drained first, as a load balancer does before it sends SIGTERM.
    while (replica.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise<void>((resolve) => replica.server.close(() => resolve()));
    await replica.identity.close();
  }

  /** A rolling restart: each replica in turn replaced by one with these secrets. */
  async function rollTo(secrets: Record<string, string>): Promise<void> {
    for (let i = 0; i < replicas.length; i++) {
      const next = await startReplica(secrets);
      const previous = replicas[i]!;
      replicas[i] = next;
      await stopReplica(previous);
      await loginsSince(3);
    }
  }

  // ---- traffic ----------------------------------------------------------------------------------
  let clientId = '';
  let connectionName = '';
  let nextCaller = 0;
  let stopped = false;
  const failures: string[] = [];
  const idTokens: string[] = [];
  const firstPhones: string[] = [];

  async function call(replica: Replica, path: string, body: Record<string, unknown>, ip: string): Promise<{ status: number; body: Record<string, unknown> }> {
    replica.inFlight++;
    try {
      const res = await fetch(`${replica.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': ip }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    } finally {
      replica.inFlight--;
    }
  }

  async function oneLogin(n: number): Promise<void> {
    const phone = `+1415556${String(n).padStart(4, '0')}`;
    const ip = `198.19.${Math.floor(n / 250)}.${(n % 250) + 1}`;
    // Each request goes to the replica in that place at the moment it is sent, as through a
    // load balancer: never to one that has left.
    const started = await call(replicas[n % 2]!, '/passwordless/start', { client_id: clientId, connection: connectionName, phone_number: phone, send: 'code' }, ip);
    if (started.status !== 200) return void failures.push(`start ${phone}: ${started.status} ${JSON.stringify(started.body)}`);
    const code = /\b(\d{6})\b/.exec(gateway.get(phone) ?? '')?.[1];
    if (!code) return void failures.push(`no code reached the gateway for ${phone}`);
    const token = await call(replicas[(n + 1) % 2]!, '/oauth/ro', { client_id: clientId, connection: connectionName, grant_type: 'password', username: phone, password: code, scope: 'openid' }, ip);
    if (token.status !== 200) return void failures.push(`ro ${phone}: ${token.status} ${JSON.stringify(token.body)}`);
    idTokens.push(token.body.id_token as string);
    if (firstPhones.length < 3) firstPhones.push(phone);
  }

  let completed = 0;
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  async function traffic(worker: number, workers: number): Promise<void> {
    for (let i = 0; !stopped; i++) {
      await oneLogin(++nextCaller * workers + worker);
      completed++;
      for (const waiter of waiters.splice(0)) {
        if (completed >= waiter.count) waiter.resolve();
        else waiters.push(waiter);
      }
    }
  }
  /** Resolves once `count` more logins have completed: every step runs under traffic. */
  const loginsSince = (count: number) => new Promise<void>((resolve) => waiters.push({ count: completed + count, resolve }));

  async function sealedValues(): Promise<string[]> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ value: string }>(
        `SELECT private_key AS value FROM ${schema}.signing_keys
         UNION ALL SELECT gateway_secret FROM ${schema}.connections WHERE gateway_secret IS NOT NULL
         UNION ALL SELECT http_authorization FROM ${schema}.log_streams WHERE http_authorization IS NOT NULL
         UNION ALL SELECT signing_secret FROM ${schema}.log_streams
         UNION ALL SELECT secret FROM ${schema}.one_time_codes
         UNION ALL SELECT sealed FROM ${schema}.store_keys`,
      );
      return rows.map((row) => row.value);
    } finally {
      await client.end();
    }
  }

  /** Every text column of the schema with a value in SecretCipher's format, as table.column. */
  async function columnsHoldingSealedValues(): Promise<string[]> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows: columns } = await client.query<{ table_name: string; column_name: string }>(
        `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1 AND data_type = 'text'`,
        [schema],
      );
      const found: string[] = [];
      for (const { table_name: table, column_name: column } of columns) {
        const { rows } = await client.query(`SELECT 1 FROM ${schema}.${table} WHERE ${column} LIKE 'aes256gcm:%' OR ${column} LIKE 'plain:%' LIMIT 1`);
        if (rows.length > 0) found.push(`${table}.${column}`);
      }
      return found.sort();
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    gatewayServer = await RecordingServer.start({
      path: '/sms',
      responder: (_req, res, recorded) => {
        const message = JSON.parse(recorded.body) as { recipient: string; body: string };
        gateway.set(message.recipient, message.body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      },
    });
    replicas.push(await startReplica({ KEY_ENCRYPTION_SECRET: OLD }), await startReplica({ KEY_ENCRYPTION_SECRET: OLD }));
  });
  afterAll(async () => {
    stopped = true;
    for (const replica of replicas) await stopReplica(replica).catch(() => undefined);
    await gatewayServer?.close();
    await dropSchema(databaseUrl, schema);
  });

  it('keeps every login working through the four steps, and leaves every stored secret sealed with the new secret', async () => {
    const first = replicas[0]!;
    const admin = await adminToken(first.identity.app);
    const management = (path: string, body: unknown) =>
      fetch(`${first.url}/api/v2${path}`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
        async (res) => ({ status: res.status, body: (await res.json()) as Record<string, string> }),
      );
    const app = await management('/clients', { name: 'Rotation App', app_type: 'native' });
    expect(app.status).toBe(201);
    clientId = app.body.client_id!;
    // A sealed gateway secret (opened at every start to sign the delivery's bearer token) and a
    // log stream's sealed authorization header, beside the signing keys and the codes.
    const connection = await management(
      '/connections',
      connectionBody(
        { gateway_url: gatewayServer.url(), gateway_authentication: { method: 'bearer', subject: 'identity', audience: 'sms-gateway', secret: 'gateway-secret-sealed-at-rest-000' } },
        [clientId],
      ),
    );
    expect(connection.status).toBe(201);
    connectionName = connection.body.name!;
    const stream = await management('/log-streams', { name: 'SIEM', type: 'http', sink: { httpEndpoint: 'https://siem.example.com/ingest', httpAuthorization: 'Bearer siem-token' } });
    expect(stream.status).toBe(201);

    const workers = [0, 1, 2].map((worker) => traffic(worker, 3));
    await loginsSince(5);
    const tokensBefore = idTokens.length;

    // 1. Every replica learns the new secret, for opening only.
    await rollTo({ KEY_ENCRYPTION_SECRET: OLD, KEY_ENCRYPTION_FALLBACK_SECRET: NEW });
    // 2. Every replica seals with the new secret, and still opens the old one's values.
    await rollTo({ KEY_ENCRYPTION_SECRET: NEW, KEY_ENCRYPTION_FALLBACK_SECRET: OLD });
    // 3. Everything still sealed with the old secret is resealed, online.
    let out = '';
    let err = '';
    const code = await runCommand(['keys', 'rotate-secret'], {
      config: testConfig({ ...shared, KEY_ENCRYPTION_SECRET: NEW, KEY_ENCRYPTION_FALLBACK_SECRET: OLD }),
      variables: {},
      schema,
      out: (text) => (out += text),
      err: (text) => (err += text),
    });
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out).toMatch(new RegExp(`^resealed \\d+ value\\(s\\) with KEY_ENCRYPTION_SECRET \\(key id ${secretKeyId(NEW)}\\): .*signing_keys\\.private_key \\d+`));
    expect(out).toContain('connections.gateway_secret 1');
    expect(out).toContain('log_streams.http_authorization 1');
    expect(out).toContain('store_keys.sealed 1');
    await loginsSince(3);
    // 4. The old secret is forgotten.
    await rollTo({ KEY_ENCRYPTION_SECRET: NEW });
    await loginsSince(5);
    stopped = true;
    await Promise.all(workers);

    expect(failures).toEqual([]);
    expect(idTokens.length).toBeGreaterThan(tokensBefore + 20);
    const values = await sealedValues();
    expect(values.length).toBeGreaterThan(5);
    expect(values.filter((value) => !value.startsWith(`aes256gcm:v2:${secretKeyId(NEW)}:`))).toEqual([]);

    // Every column that holds sealed values is one the command reseals.
    expect(await columnsHoldingSealedValues()).toEqual(SEALED_COLUMNS.map((spec) => `${spec.table}.${spec.column}`).sort());

    // Tokens signed before the rotation verify with the keys published after it.
    const jwks = (await (await fetch(`${replicas[0]!.url}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> };
    for (const token of [idTokens[0]!, idTokens[idTokens.length - 1]!]) {
      const { header } = jwt.decode(token, { complete: true })!;
      const key = jwks.keys.find((k) => k.kid === header.kid)!;
      expect(jwt.verify(token, createPublicKey({ key, format: 'jwk' }), { algorithms: ['RS256'], issuer: ISSUER, audience: clientId, ignoreExpiration: true })).toMatchObject({ aud: clientId });
    }

    // The tenant logs' lookup key outlived the secret: a number that signed in before the
    // rotation is still found by the number.
    const logs = await fetch(`${replicas[1]!.url}/api/v2/logs?q=${encodeURIComponent(`phone_number:"${firstPhones[0]}"`)}`, {
      headers: { authorization: `Bearer ${await adminToken(replicas[1]!.identity.app)}` },
    });
    expect(logs.status).toBe(200);
    const types = ((await logs.json()) as Array<{ type: string }>).map((log) => log.type);
    expect(types).toContain('cs');
    expect(types.length).toBeGreaterThanOrEqual(2);

    // Run again, there is nothing left to do.
    out = '';
    expect(await runCommand(['keys', 'rotate-secret'], { config: testConfig({ ...shared, KEY_ENCRYPTION_SECRET: NEW }), variables: {}, schema, out: (t) => (out += t), err: (t) => (err += t) })).toBe(0);
    expect(out).toMatch(/^resealed 0 value\(s\) with KEY_ENCRYPTION_SECRET \(key id [0-9a-f]{8}\); \d+ already sealed with it\./);
  });

  it('refuses to start with only the old secret once the rotation is done, and says why', async () => {
    await expect(startTestIdentity({ ...shared, KEY_ENCRYPTION_SECRET: OLD }, { schema })).rejects.toThrow(
      `a stored secret cannot be decrypted: KEY_ENCRYPTION_SECRET differs from the one it was sealed with (the secret of key id ${secretKeyId(NEW)})`,
    );
  });
});
