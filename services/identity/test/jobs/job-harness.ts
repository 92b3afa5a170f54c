import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { JobRecordSchema, type JobRecord } from '@smsauth/contracts';
import request from 'supertest';
import type { StartOptions } from '../../src/start';
import { adminToken, connectionBody, startTestIdentity, TestClock, type TestIdentity } from '../helpers';
import { manualTimers } from '../log-streams/stream-harness';
import { listen } from '../passwordless/flow-harness';

/** An identity on a real port whose job worker is driven by hand (runOnce), with an sms connection. */
export class JobHarness {
  private constructor(
    readonly identity: TestIdentity,
    readonly server: Server,
    readonly admin: string,
    readonly clock: TestClock,
    readonly connectionId: string,
  ) {}

  /** `connectionId`: a connection an earlier instance made on the same database (else one is created). */
  static async start(
    env: Record<string, string | undefined>,
    options: StartOptions & { clock?: TestClock; batchSize?: number; connectionId?: string } = {},
  ): Promise<JobHarness> {
    const clock = options.clock ?? new TestClock();
    const identity = await startTestIdentity(env, { ...options, clock, userJobs: { timers: manualTimers, batchSize: options.batchSize ?? 2 } });
    const server = await listen(identity.app);
    const admin = await adminToken(identity.app);
    let connectionId = options.connectionId;
    if (!connectionId) {
      const created = await request(server).post('/api/v2/connections').set('authorization', `Bearer ${admin}`).send(connectionBody());
      if (created.status !== 201) throw new Error(`connection create failed: ${created.status} ${JSON.stringify(created.body)}`);
      connectionId = created.body.id as string;
    }
    return new JobHarness(identity, server, admin, clock, connectionId);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  management(method: 'get' | 'post', path: string): request.Test {
    return request(this.url)[method](`/api/v2${path}`).set('authorization', `Bearer ${this.admin}`);
  }

  /** POST /jobs/users-imports with `users` as the file (a value is sent as JSON, a Buffer as it is). */
  importUsers(users: unknown, fields: Record<string, string> = {}): request.Test {
    const file = Buffer.isBuffer(users) ? users : Buffer.from(JSON.stringify(users));
    let req = this.management('post', '/jobs/users-imports').attach('users', file, { filename: 'users.json', contentType: 'application/json' });
    for (const [name, value] of Object.entries({ connection_id: this.connectionId, ...fields })) req = req.field(name, value);
    return req;
  }

  async job(id: string): Promise<JobRecord> {
    const res = await this.management('get', `/jobs/${id}`);
    expect(res.status).toBe(200);
    return JobRecordSchema.strict().parse(res.body);
  }

  /** Creates an import, runs the worker to the end, answers the finished job. */
  async importAndRun(users: unknown, fields: Record<string, string> = {}): Promise<JobRecord> {
    const created = await this.importUsers(users, fields);
    if (created.status !== 201) throw new Error(`import refused: ${created.status} ${JSON.stringify(created.body)}`);
    await this.identity.userJobWorker.drain();
    return this.job(created.body.id);
  }

  /** Downloads a completed export's file from its location and answers the text inside the gzip. */
  async download(location: string): Promise<{ status: number; text?: string; contentType?: string }> {
    const path = new URL(location).pathname;
    const res = await request(this.url).get(path).buffer(true).parse((r, done) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => done(null, Buffer.concat(chunks)));
    });
    if (res.status !== 200) return { status: res.status };
    return { status: 200, text: gunzipSync(res.body as Buffer).toString('utf8'), contentType: res.headers['content-type'] };
  }

  async close(): Promise<void> {
    await new Promise((resolve) => this.server.close(resolve));
    await this.identity.close();
  }
}
