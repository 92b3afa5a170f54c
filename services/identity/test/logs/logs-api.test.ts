import pg from 'pg';
import { LogsEnvelopeSchema, TenantLogSchema } from '@smsauth/contracts';
import { logRecord, type LogContext } from '../../src/domain/logs/tenant-log';
import { describeOnEachDatabase, FlowHarness } from '../passwordless/flow-harness';
import { untilSettled } from './log-harness';

// GET /api/v2/logs, /logs/{id} and /users/{id}/logs over HTTP, on records the test appends
// with known dates, types, users and clients.
describeOnEachDatabase('tenant logs API', (database) => {
  let h: FlowHarness;
  const client = 'logs-api-client';
  const at = (day: number, hour = 12) => new Date(Date.UTC(2026, 0, day, hour));
  const seeded: Array<{ log_id: string; type: string; user: string; date: Date }> = [];

  beforeAll(async () => {
    h = await FlowHarness.start({}, { database });
    // Ten records, one a day in January 2026, appended out of date order (stream order differs from dates).
    const days = [3, 1, 2, 5, 4, 6, 8, 7, 9, 10];
    for (const [i, day] of days.entries()) {
      const user = i % 2 === 0 ? 'sms|even' : 'sms|odd';
      const type = i % 3 === 0 ? 'fp' : 's';
      const context: LogContext = { clientId: client, userId: user, ip: `203.0.113.${i}`, phoneNumber: '+14155550123', connection: { name: 'sms', id: 'con_1' } };
      const record = logRecord(type as 's' | 'fp', context, at(day), { n: i });
      await h.identity.store.tenantLogs.append(record);
      seeded.push({ log_id: record.log_id, type, user, date: at(day) });
    }
  });
  afterAll(() => h?.close());

  const get = (path: string) => h.management('get', path);
  const ofClient = `q=${encodeURIComponent(`client_id:${client}`)}`;

  it('searches newest first by default, pages with page/per_page and counts with include_totals', async () => {
    const first = await get(`/logs?${ofClient}&per_page=4`).expect(200);
    expect(first.body.map((l: { date: string }) => l.date)).toEqual([at(10), at(9), at(8), at(7)].map((d) => d.toISOString()));
    for (const log of first.body) TenantLogSchema.parse(log);
    expect(first.body[0]).toMatchObject({ client_id: client, phone_number: '***0123', connection: 'sms', connection_id: 'con_1' });

    const third = await get(`/logs?${ofClient}&per_page=4&page=2&include_totals=true`).expect(200);
    const envelope = LogsEnvelopeSchema.parse(third.body);
    expect(envelope).toMatchObject({ start: 8, limit: 4, length: 2, total: 10 });
    expect(envelope.logs.map((l) => l.date)).toEqual([at(2), at(1)].map((d) => d.toISOString()));

    const oldest = await get(`/logs?${ofClient}&sort=date:1&per_page=2`).expect(200);
    expect(oldest.body.map((l: { date: string }) => l.date)).toEqual([at(1), at(2)].map((d) => d.toISOString()));
  });

  it('filters on type, user and date ranges (inclusive, exclusive, open), all terms together', async () => {
    const search = async (q: string) =>
      ((await get(`/logs?q=${encodeURIComponent(`client_id:${client} AND ${q}`)}&per_page=100`).expect(200)).body as Array<{ log_id: string }>).map((l) => l.log_id).sort();
    const ids = (keep: (s: (typeof seeded)[number]) => boolean) => seeded.filter(keep).map((s) => s.log_id).sort();

    expect(await search('type:fp')).toEqual(ids((s) => s.type === 'fp'));
    expect(await search('type:s user_id:"sms|even"')).toEqual(ids((s) => s.type === 's' && s.user === 'sms|even'));
    expect(await search('date:[2026-01-03 TO 2026-01-05T12:00:00Z]')).toEqual(ids((s) => s.date >= at(3) && s.date <= at(5)));
    expect(await search('date:{2026-01-03T12:00:00 TO 2026-01-05T12:00:00Z}')).toEqual(ids((s) => s.date > at(3) && s.date < at(5)));
    expect(await search('date:[2026-01-08 TO *]')).toEqual(ids((s) => s.date >= at(8, 0)));
    expect(await search('ip:203.0.113.4')).toEqual([seeded[4]!.log_id]);
  });

  it('refuses what it cannot search with a 400 naming q, and pages past the first 1,000 with a 400 naming page', async () => {
    for (const q of ['type:s OR type:fp', 'NOT type:s', 'description:x', 'type:s*', 'date:[yesterday TO *]', 'date:2026-01-01', 'type:"open']) {
      const res = await get(`/logs?q=${encodeURIComponent(q)}`).expect(400);
      expect(res.body.error_description).toMatch(/^q: /);
    }
    const far = await get('/logs?page=10&per_page=100').expect(400);
    expect(far.body.error_description).toMatch(/^page: /);
    expect((await get('/logs?sort=type:1').expect(400)).body.error_description).toMatch(/^sort: /);
  });

  it('projects fields, and reads one log by id (404 for an unknown one)', async () => {
    const projected = await get(`/logs?${ofClient}&per_page=1&fields=log_id,type`).expect(200);
    expect(Object.keys(projected.body[0]).sort()).toEqual(['log_id', 'type']);
    const one = await get(`/logs/${seeded[3]!.log_id}`).expect(200);
    expect(one.body).toMatchObject({ log_id: seeded[3]!.log_id, date: at(5).toISOString(), type: 'fp', user_id: 'sms|odd', details: { n: 3 } });
    expect((await get('/logs/90000000000000000000').expect(404)).body.error).toBe('not_found');
  });

  it("lists a user's logs newest first", async () => {
    const res = await get('/users/sms%7Codd/logs?per_page=100').expect(200);
    expect(res.body.map((l: { log_id: string }) => l.log_id)).toEqual(
      seeded.filter((s) => s.user === 'sms|odd').sort((a, b) => b.date.getTime() - a.date.getTime()).map((s) => s.log_id),
    );
  });

  it('reads by checkpoint in stream order with from/take, following the Link header to the end', async () => {
    await untilSettled(h, seeded.map((s) => s.log_id));
    const read: string[] = [];
    let next = `/logs?from=${seeded[0]!.log_id}&take=4`;
    for (let page = 0; page < 10; page += 1) {
      const res = await get(next).expect(200);
      expect(Array.isArray(res.body)).toBe(true);
      const link = /<([^>]+)>; rel="next"/.exec(String(res.headers.link))?.[1];
      expect(link).toBeDefined();
      if (res.body.length === 0) {
        // Nothing newer: the next link is the same request.
        expect(link).toBe(`/api/v2${next}`);
        break;
      }
      read.push(...res.body.map((l: { log_id: string }) => l.log_id));
      next = link!.replace(/^\/api\/v2/, '');
    }
    expect(read.slice(0, 9)).toEqual(seeded.slice(1).map((s) => s.log_id));

    const fromStart = await get('/logs?take=3').expect(200);
    expect(fromStart.body).toHaveLength(3);
    const unknown = await get('/logs?from=900123&take=3').expect(400);
    expect(unknown.body.error_description).toMatch(/^from: /);
  });

  if (database.name === 'PostgreSQL') {
    it('holds back by checkpoint the records behind a transaction still open, so a reader never skips one', async () => {
      const last = seeded.at(-1)!.log_id;
      const other = new pg.Client({ connectionString: database.env.DATABASE_URL });
      await other.connect();
      try {
        await other.query(`SET search_path TO ${database.schema}`);
        await other.query('BEGIN');
        const slow = logRecord('s', { clientId: 'slow' }, at(20));
        await other.query(`INSERT INTO tenant_logs (log_id, date, type, description, details) VALUES ($1, $2, 's', '', '{}')`, [slow.log_id, slow.date]);
        const quick = logRecord('s', { clientId: 'quick' }, at(21));
        await h.identity.store.tenantLogs.append(quick);
        const during = (await get(`/logs?from=${last}&take=100`).expect(200)).body.map((l: { log_id: string }) => l.log_id);
        expect(during).not.toContain(quick.log_id);
        await other.query('COMMIT');
        await untilSettled(h, [slow.log_id, quick.log_id]);
        const after = (await get(`/logs?from=${last}&take=100`).expect(200)).body.map((l: { log_id: string }) => l.log_id);
        expect(after.indexOf(slow.log_id)).toBeGreaterThanOrEqual(0);
        expect(after.indexOf(quick.log_id)).toBeGreaterThan(after.indexOf(slow.log_id));
      } finally {
        await other.end();
      }
    });
  }
});
