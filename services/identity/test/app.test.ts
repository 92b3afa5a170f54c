import request from 'supertest';
import { createLogger, loadConfig } from '@smsauth/service-kit';
import { buildApp } from '../src/app';
import { configSchema } from '../src/config';

describe('identity app', () => {
  const config = loadConfig(configSchema, {});
  const { app } = buildApp({ config, logger: createLogger({ name: 'test', level: 'silent' }) });

  it('listens on port 4000 by default', () => {
    expect(config.PORT).toBe(4000);
  });

  it('answers /healthz and /readyz', async () => {
    expect((await request(app).get('/healthz')).status).toBe(200);
    expect((await request(app).get('/readyz')).status).toBe(200);
  });

  it('exposes Prometheus metrics', async () => {
    const res = await request(app).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toContain('service="identity"');
  });
});
