import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobHarness } from './job-harness';

// scripts/convert-users.mjs turns a Supabase Auth or Firebase phone-auth export into an import
// file; what it writes is imported here through the API, so the mapping is proven end to end.

const SCRIPT = join(__dirname, '..', '..', '..', '..', 'scripts', 'convert-users.mjs');

function convert(source: 'supabase' | 'firebase', input: string): { users: unknown[]; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'convert-users-'));
  try {
    const file = join(dir, 'export.json');
    writeFileSync(file, input);
    const run = spawnSync(process.execPath, [SCRIPT, source, file], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`convert-users failed: ${run.stderr}`);
    return { users: JSON.parse(run.stdout) as unknown[], stderr: run.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('converting Supabase and Firebase exports (scripts/convert-users.mjs)', () => {
  let h: JobHarness;
  beforeAll(async () => {
    h = await JobHarness.start({ DATABASE_URL: 'memory://' }, { batchSize: 100 });
  });
  afterAll(() => h?.close());

  it('maps auth.users rows of Supabase (NDJSON): number without +, confirmation, ban, both metadata', async () => {
    const rows = [
      {
        id: '6f1c1b0e-0000-4000-8000-000000000001',
        phone: '14155550301',
        phone_confirmed_at: '2025-01-02T03:04:05Z',
        banned_until: null,
        raw_user_meta_data: { display_name: 'Ada' },
        raw_app_meta_data: { provider: 'phone', providers: ['phone'], plan: 'pro' },
      },
      { id: '6f1c1b0e-0000-4000-8000-000000000002', phone: '14155550302', phone_confirmed_at: null, banned_until: '2999-01-01T00:00:00Z', raw_app_meta_data: { provider: 'phone' } },
      { id: '6f1c1b0e-0000-4000-8000-000000000003', phone: null, email: 'only@example.com' },
    ];
    const { users, stderr } = convert('supabase', rows.map((row) => JSON.stringify(row)).join('\n'));
    expect(users).toEqual([
      { user_id: rows[0]!.id, phone_number: '+14155550301', phone_verified: true, blocked: false, user_metadata: { display_name: 'Ada' }, app_metadata: { plan: 'pro' } },
      { user_id: rows[1]!.id, phone_number: '+14155550302', phone_verified: false, blocked: true },
    ]);
    expect(stderr).toContain(`left out ${rows[2]!.id}: no phone number`);

    const job = await h.importAndRun(users);
    expect(job.summary).toEqual({ inserted: 2, updated: 0, failed: 0, total: 2 });
    expect(await h.identity.store.users.findById(`sms|${rows[0]!.id}`)).toMatchObject({ phone_number: '+14155550301', user_metadata: { display_name: 'Ada' } });
  });

  it('maps a Firebase auth:export file: localId, phoneNumber, disabled, custom claims', async () => {
    const exported = {
      users: [
        { localId: 'fbUser1', phoneNumber: '+33612345678', disabled: false, customAttributes: '{"role":"admin"}', createdAt: '1700000000000' },
        { localId: 'fbUser2', phoneNumber: '+33612345679', disabled: true },
        { localId: 'fbUser3', email: 'mail@example.com', passwordHash: 'x' },
      ],
    };
    const { users } = convert('firebase', JSON.stringify(exported, null, 2));
    expect(users).toEqual([
      { user_id: 'fbUser1', phone_number: '+33612345678', phone_verified: true, blocked: false, app_metadata: { role: 'admin' } },
      { user_id: 'fbUser2', phone_number: '+33612345679', phone_verified: true, blocked: true },
    ]);
    const job = await h.importAndRun(users);
    expect(job.summary).toEqual({ inserted: 2, updated: 0, failed: 0, total: 2 });
    expect(await h.identity.store.users.findById('sms|fbUser2')).toMatchObject({ blocked: true, phone_verified: true });
  });
});
