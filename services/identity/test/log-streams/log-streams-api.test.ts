import { LogStreamCreatedSchema, LogStreamRecordSchema, OAuthErrorBodySchema } from '@smsauth/contracts';
import { z } from 'zod';
import type { ResolveHost } from '../../src/delivery/gateway-url-policy';
import { adminToken } from '../helpers';
import { describeOnEachDatabase } from '../passwordless/flow-harness';
import { RecordingServer, StreamHarness } from './stream-harness';

const KEY_ENCRYPTION_SECRET = 'log-streams-key-encryption-secret-0123456789';
const AUTHORIZATION = 'Splunk 6f1c1b0e-authorization-header-value';

describeOnEachDatabase('log streams management API', (database) => {
  let h: StreamHarness;
  beforeAll(async () => {
    h = await StreamHarness.start({ ...database.env, KEY_ENCRYPTION_SECRET }, { schema: database.schema });
  });
  afterAll(() => h?.close());

  const sink = (extra: Record<string, unknown> = {}) => ({ httpEndpoint: 'https://siem.example.com/ingest?source=smsauth', ...extra });

  it('creates an active http stream in the reference shape and shows its signing secret only in the create answer', async () => {
    const res = await h.management('post', '/log-streams', { name: 'SIEM', type: 'http', sink: sink({ httpAuthorization: AUTHORIZATION }) });
    expect(res.status).toBe(201);
    const created = LogStreamCreatedSchema.parse(res.body);
    expect(created).toMatchObject({
      name: 'SIEM',
      type: 'http',
      status: 'active',
      sink: { httpEndpoint: 'https://siem.example.com/ingest?source=smsauth', httpContentFormat: 'JSONLINES', httpContentType: 'application/json' },
      delivery: { consecutive_failures: 0 },
    });
    expect(JSON.stringify(res.body)).not.toContain(AUTHORIZATION);

    const fetched = await h.management('get', `/log-streams/${created.id}`);
    expect(fetched.status).toBe(200);
    expect(LogStreamRecordSchema.strict().parse(fetched.body)).toEqual(LogStreamRecordSchema.parse(res.body));
    expect(JSON.stringify(fetched.body)).not.toContain(created.signing_secret);
    expect(JSON.stringify(fetched.body)).not.toContain(AUTHORIZATION);
    const listed = await h.management('get', '/log-streams');
    expect(z.array(LogStreamRecordSchema).parse(listed.body).map((s) => s.id)).toContain(created.id);
    expect(JSON.stringify(listed.body)).not.toContain(AUTHORIZATION);
  });

  it('keeps the authorization header and the signing secret encrypted at rest', async () => {
    const created = await h.createStream(sink({ httpAuthorization: AUTHORIZATION }));
    const { rows } = await h.identity.sql.query<Record<string, unknown>>('SELECT * FROM log_streams WHERE id = $1', [created.id]);
    const stored = JSON.stringify(rows[0]);
    expect(stored).not.toContain(AUTHORIZATION);
    expect(stored).not.toContain(created.signing_secret);
    expect(rows[0]!.http_authorization).toMatch(/^aes256gcm:v2:[0-9a-f]{8}:/);
    expect(rows[0]!.signing_secret).toMatch(/^aes256gcm:v2:[0-9a-f]{8}:/);
    const opened = await h.identity.store.logStreams.findById(created.id);
    expect(opened).toMatchObject({ httpAuthorization: AUTHORIZATION, signingSecret: created.signing_secret });
  });

  it('merges a PATCH into the sink, keeps an omitted authorization, removes it on null, and renames', async () => {
    const created = await h.createStream(sink({ httpAuthorization: AUTHORIZATION, httpContentFormat: 'JSONARRAY' }));
    const patched = await h.management('patch', `/log-streams/${created.id}`, { name: 'Renamed', sink: { httpContentType: 'application/x-ndjson' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'Renamed',
      sink: { httpEndpoint: 'https://siem.example.com/ingest?source=smsauth', httpContentFormat: 'JSONARRAY', httpContentType: 'application/x-ndjson' },
    });
    expect((await h.identity.store.logStreams.findById(created.id))!.httpAuthorization).toBe(AUTHORIZATION);
    await h.management('patch', `/log-streams/${created.id}`, { sink: { httpAuthorization: null } }).expect(200);
    expect((await h.identity.store.logStreams.findById(created.id))!.httpAuthorization).toBeNull();
  });

  it('pauses and resumes a stream by PATCHing its status', async () => {
    const created = await h.createStream(sink());
    expect((await h.management('patch', `/log-streams/${created.id}`, { status: 'paused' })).body.status).toBe('paused');
    expect((await h.management('patch', `/log-streams/${created.id}`, { status: 'active' })).body.status).toBe('active');
  });

  it('deletes a stream, after which it is not found', async () => {
    const created = await h.createStream(sink());
    await h.management('delete', `/log-streams/${created.id}`).expect(204);
    const res = await h.management('get', `/log-streams/${created.id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', error_description: 'Log stream not found' });
    expect((await h.management('delete', `/log-streams/${created.id}`)).status).toBe(404);
    expect((await h.management('patch', `/log-streams/${created.id}`, { name: 'x' })).status).toBe(404);
  });

  describe('refuses bad input with a 400 naming the field', () => {
    const cases: Array<[string, unknown, string]> = [
      ['no sink', { name: 'SIEM', type: 'http' }, 'sink'],
      ['no name', { type: 'http', sink: { httpEndpoint: 'https://siem.example.com/' } }, 'name'],
      ['a sink type this service does not deliver to', { name: 'SIEM', type: 'eventbridge', sink: { awsRegion: 'us-east-1' } }, 'type'],
      ['a non-http endpoint', { name: 'SIEM', type: 'http', sink: { httpEndpoint: 'file:///etc/passwd' } }, 'sink.httpEndpoint'],
      ['an unknown content format', { name: 'SIEM', type: 'http', sink: { httpEndpoint: 'https://siem.example.com/', httpContentFormat: 'XML' } }, 'sink.httpContentFormat'],
      ['a content type that is not a media type', { name: 'SIEM', type: 'http', sink: { httpEndpoint: 'https://siem.example.com/', httpContentType: 'json\r\nX-Evil: 1' } }, 'sink.httpContentType'],
      ['an authorization header with a line break', { name: 'SIEM', type: 'http', sink: { httpEndpoint: 'https://siem.example.com/', httpAuthorization: 'Bearer a\r\nX-Evil: 1' } }, 'sink.httpAuthorization'],
      ['an unknown sink field', { name: 'SIEM', type: 'http', sink: { httpEndpoint: 'https://siem.example.com/', splunkToken: 'x' } }, 'sink.splunkToken'],
      ['filters, which this service does not apply', { name: 'SIEM', type: 'http', sink: { httpEndpoint: 'https://siem.example.com/' }, filters: [] }, 'filters'],
    ];
    it.each(cases)('on create: %s', async (_what, body, path) => {
      const res = await h.management('post', '/log-streams', body);
      expect(res.status).toBe(400);
      const error = OAuthErrorBodySchema.parse(res.body);
      expect(error.error).toBe('invalid_request');
      expect(error.details?.map((d) => d.path)).toContain(path);
    });

    it.each([
      ['a status only failures set', { status: 'suspended' }, 'status'],
      ['a type change', { type: 'http' }, 'type'],
      ['an empty name', { name: '' }, 'name'],
      ['a relative endpoint', { sink: { httpEndpoint: '/ingest' } }, 'sink.httpEndpoint'],
    ])('on update: %s', async (_what, body, path) => {
      const created = await h.createStream(sink());
      const res = await h.management('patch', `/log-streams/${created.id}`, body);
      expect(res.status).toBe(400);
      expect(OAuthErrorBodySchema.parse(res.body).details?.map((d) => d.path)).toContain(path);
    });
  });

  it('demands the log stream scopes', async () => {
    const readOnly = await adminToken(h.identity.app, 'read:log_streams');
    const denied = await h.management('post', '/log-streams', { name: 'SIEM', type: 'http', sink: sink() }).set('authorization', `Bearer ${readOnly}`);
    expect(denied.status).toBe(403);
    expect(denied.body.error_description).toBe('Insufficient scope, expected: create:log_streams');
  });
});

describe('log stream endpoints under GATEWAY_URL_POLICY=public', () => {
  // DNS the test controls: sink.example resolves wherever `answer` says.
  let answer = '93.184.216.34';
  const resolveHost: ResolveHost = async (host) => {
    if (host === 'sink.example') return [{ address: answer, family: 4 }];
    if (host === 'metadata.example') return [{ address: '169.254.169.254', family: 4 }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  };
  let h: StreamHarness;
  let receiver: RecordingServer;
  beforeAll(async () => {
    h = await StreamHarness.start({ GATEWAY_URL_POLICY: 'public' }, { resolveHost });
    receiver = await RecordingServer.start({ path: '/logs' });
  });
  afterAll(async () => {
    await h?.close();
    await receiver?.close();
  });

  it.each([
    ['a loopback address', 'http://127.0.0.1:8080/logs', '127.0.0.1, a loopback address'],
    ['a private address', 'http://10.0.0.7/logs', '10.0.0.7, a private address'],
    ['a name resolving to the metadata address', 'http://metadata.example/latest', '169.254.169.254, a linkLocal address'],
    ['a name that does not resolve', 'http://nowhere.example/logs', 'could not be resolved'],
  ])('refuses a sink at %s when the stream is created or updated', async (_what, url, reason) => {
    const created = await h.management('post', '/log-streams', { name: 'SIEM', type: 'http', sink: { httpEndpoint: url } });
    expect(created.status).toBe(400);
    expect(created.body.details).toEqual([{ path: 'sink.httpEndpoint', message: expect.stringContaining(reason) }]);

    const stream = await h.createStream({ httpEndpoint: 'https://sink.example/logs' });
    const updated = await h.management('patch', `/log-streams/${stream.id}`, { sink: { httpEndpoint: url } });
    expect(updated.status).toBe(400);
    expect(updated.body.details).toEqual([{ path: 'sink.httpEndpoint', message: expect.stringContaining(reason) }]);
  });

  it('refuses to deliver when the accepted name later resolves to an internal address (DNS rebinding), and says why on the stream', async () => {
    answer = '93.184.216.34';
    const stream = await h.createStream({ httpEndpoint: `http://sink.example:${receiver.port}/logs` });
    answer = '127.0.0.1';
    await h.record(1);
    await h.identity.logStreamWorker.runOnce();
    expect(receiver.requests).toEqual([]);
    const after = await h.stream(stream.id);
    expect(after.delivery).toMatchObject({ consecutive_failures: 1, last_failure: { reason: expect.stringContaining('GATEWAY_URL_POLICY') } });
    expect(await h.metric('log_stream_deliveries_total', { stream: stream.id, outcome: 'refused' })).toBe(1);
  });
});
