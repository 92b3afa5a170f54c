import { createPublicKey } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import type { Express } from 'express';
import { PASSWORDLESS_OTP_GRANT } from '@smsauth/contracts';
import type { StartOptions } from '../../src/start';
import {
  adminToken,
  AUTH_URL,
  connectionBody,
  describeWithPostgres,
  dropSchema,
  startTestIdentity,
  TEST_DATABASE_URL,
  TestClock,
  uniqueSchema,
  type TestIdentity,
} from '../helpers';
import { RecordingServer } from '@smsauth/test-support';

export const ISSUER = `${AUTH_URL}/`;

/** Where a suite keeps its data: PGlite always, PostgreSQL when TEST_DATABASE_URL is set. */
export interface TestDatabase {
  name: string;
  env: Record<string, string>;
  schema?: string;
}

/**
 * Declares `fn`'s suite once per database: embedded PostgreSQL always, and PostgreSQL (in a
 * schema of its own, dropped after the suite's own afterAll hooks) when TEST_DATABASE_URL is
 * set, loudly skipped otherwise.
 */
export function describeOnEachDatabase(name: string, fn: (database: TestDatabase) => void): void {
  describe(`${name} (PGlite)`, () => fn({ name: 'PGlite', env: { DATABASE_URL: 'memory://' } }));
  describeWithPostgres(`${name} (PostgreSQL)`, (databaseUrl) => {
    const schema = uniqueSchema('flow');
    fn({ name: 'PostgreSQL', env: { DATABASE_URL: databaseUrl }, schema });
    // Declared after fn's hooks: Jest runs a block's afterAll hooks in declaration order, so the
    // suite's own afterAll (closing its identity, whose background workers query the schema)
    // finishes before the schema is dropped.
    afterAll(() => dropSchema(databaseUrl, schema));
  });
}

export { TEST_DATABASE_URL };

/** A running identity service on a real port, a recording delivery gateway and an admin token. */
export class FlowHarness {
  private nextCaller = 0;

  private constructor(
    readonly identity: TestIdentity,
    readonly clock: TestClock,
    readonly gateway: RecordingServer,
    readonly server: Server,
    readonly admin: string,
    private readonly ownsGateway: boolean,
  ) {}

  static async start(
    env: Record<string, string | undefined> = {},
    options: StartOptions & { database?: TestDatabase; clock?: TestClock; gateway?: RecordingServer } = {},
  ): Promise<FlowHarness> {
    // A given clock and gateway outlive this harness: an identity started again on the same
    // database (a restart, a restore) keeps its time and the gateway its connections point at.
    const { database, clock = new TestClock(), gateway: sharedGateway, ...startOptions } = options;
    const identity = await startTestIdentity(
      { ...database?.env, ...env },
      { clock, schema: database?.schema, ...startOptions },
    );
    const gateway = sharedGateway ?? (await RecordingServer.start({ path: '/sms' }));
    const server = await listen(identity.app);
    const admin = await adminToken(identity.app);
    return new FlowHarness(identity, clock, gateway, server, admin, sharedGateway === undefined);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** supertest against the listening server: parallel requests really are parallel. */
  http() {
    return request(this.url);
  }

  /** A phone number and client address no other test uses. */
  caller(): { phone: string; ip: string } {
    this.nextCaller += 1;
    const n = this.nextCaller;
    return { phone: `+1415555${String(n).padStart(4, '0')}`, ip: `198.18.${Math.floor(n / 250)}.${(n % 250) + 1}` };
  }

  management(method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: unknown): request.Test {
    const req = this.http()[method](`/api/v2${path}`).set('authorization', `Bearer ${this.admin}`);
    return body === undefined ? req : req.send(body as object);
  }

  async createClient(body: Record<string, unknown> = {}): Promise<{ client_id: string; client_secret?: string; name: string }> {
    const res = await this.management('post', '/clients', { name: 'Flow App', app_type: 'native', ...body });
    if (res.status !== 201) throw new Error(`client create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  async createConnection(options: Record<string, unknown>, enabledClients: string[]): Promise<{ id: string; name: string }> {
    const res = await this.management('post', '/connections', connectionBody({ gateway_url: this.gateway.url(), ...options }, enabledClients));
    if (res.status !== 201) throw new Error(`connection create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  async createApi(body: Record<string, unknown>): Promise<{ identifier: string }> {
    const res = await this.management('post', '/resource-servers', body);
    if (res.status !== 201) throw new Error(`resource server create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  start(body: Record<string, unknown>, ip?: string) {
    const req = this.http().post('/passwordless/start');
    if (ip) req.set('X-Forwarded-For', ip);
    return req.send(body);
  }

  /** The code in the newest message the gateway received for `phone`. */
  codeSentTo(phone: string): string {
    const message = [...this.gateway.requests].reverse().map((r) => JSON.parse(r.body) as { recipient: string; body: string }).find((b) => b.recipient === phone);
    if (!message) throw new Error(`no message was sent to ${phone}`);
    const code = /\b(\d{4,10})\b/.exec(message.body)?.[1];
    if (!code) throw new Error(`no code in "${message.body}"`);
    return code;
  }

  /** start -> 200 -> the code the gateway received. */
  async sendCode(setup: LoginSetup, who: { phone: string; ip: string }, authParams?: Record<string, unknown>): Promise<string> {
    const res = await this.start(
      {
        client_id: setup.clientId,
        connection: setup.connection,
        phone_number: who.phone,
        send: 'code',
        ...(authParams ? { authParams } : {}),
        // A confidential client authenticates at start too (its token_endpoint_auth_method).
        ...(setup.clientSecret ? { client_secret: setup.clientSecret } : {}),
      },
      who.ip,
    );
    if (res.status !== 200) throw new Error(`start failed: ${res.status} ${JSON.stringify(res.body)}`);
    return this.codeSentTo(who.phone);
  }

  ro(setup: LoginSetup, who: { phone: string; ip: string }, password: string, extra: Record<string, unknown> = {}) {
    return this.http()
      .post('/oauth/ro')
      .set('X-Forwarded-For', who.ip)
      .send({ client_id: setup.clientId, connection: setup.connection, grant_type: 'password', username: who.phone, password, scope: 'openid', ...extra });
  }

  otp(setup: LoginSetup, who: { phone: string; ip: string }, otp: string, extra: Record<string, unknown> = {}) {
    return this.http()
      .post('/oauth/token')
      .set('X-Forwarded-For', who.ip)
      .send({ grant_type: PASSWORDLESS_OTP_GRANT, client_id: setup.clientId, realm: setup.connection, username: who.phone, otp, ...extra });
  }

  /** A client enabled on a fresh connection. */
  async loginSetup(options: Record<string, unknown> = {}, client: Record<string, unknown> = {}): Promise<LoginSetup> {
    const created = await this.createClient(client);
    const connection = await this.createConnection(options, [created.client_id]);
    return { clientId: created.client_id, clientName: created.name, clientSecret: created.client_secret, connection: connection.name, connectionId: connection.id };
  }

  /** Verifies a token with the key the service publishes at /.well-known/jwks.json. */
  async verifyWithJwks(token: string, audience: string): Promise<{ header: jwt.JwtHeader; claims: jwt.JwtPayload }> {
    const decoded = jwt.decode(token, { complete: true });
    if (!decoded) throw new Error('not a JWT');
    const jwks = (await this.http().get('/.well-known/jwks.json')).body as { keys: Array<{ kid: string }> };
    const jwk = jwks.keys.find((k) => k.kid === decoded.header.kid);
    if (!jwk) throw new Error(`kid ${decoded.header.kid} is not published`);
    const claims = jwt.verify(token, createPublicKey({ key: jwk, format: 'jwk' }), {
      algorithms: ['RS256'],
      issuer: ISSUER,
      audience,
      clockTimestamp: Math.floor(this.clock.now().getTime() / 1000),
    }) as jwt.JwtPayload;
    return { header: decoded.header, claims };
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
    if (this.ownsGateway) await this.gateway.close();
    await this.identity.close();
  }
}

export interface LoginSetup {
  clientId: string;
  clientName: string;
  clientSecret?: string;
  connection: string;
  connectionId: string;
}

export function listen(app: Express): Promise<Server> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
}
