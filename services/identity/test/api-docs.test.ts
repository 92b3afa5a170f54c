import request from 'supertest';
import { identitiesClosedAfterAll } from './helpers';

const KEY_ENCRYPTION_SECRET = 'k'.repeat(32);

describe('GET /docs (the API reference page)', () => {
  const start = identitiesClosedAfterAll();

  it('renders identity’s own /openapi.json under a strict CSP outside production', async () => {
    const page = await request((await start()).app).get('/docs').expect(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.text).toContain('data-document-url="/openapi.json"');
  });

  it('is off in production unless API_DOCS=true', async () => {
    await request((await start({ NODE_ENV: 'production', KEY_ENCRYPTION_SECRET })).app).get('/docs').expect(404);
    await request((await start({ NODE_ENV: 'production', KEY_ENCRYPTION_SECRET, API_DOCS: 'true' })).app).get('/docs').expect(200);
  });
});
