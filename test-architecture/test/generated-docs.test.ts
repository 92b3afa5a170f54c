import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { environmentVariablesOf, renderConfigurationPage } from '../../packages/service-kit/src/config-docs';
import { configSchema as airportConfig } from '../../services/airport-api/src/config';
import { configSchema as identityConfig } from '../../services/identity/src/config';
import { configSchema as gatewayConfig } from '../../services/sms-delivery-gateway/src/config';

const REPO = join(__dirname, '..', '..');
const SERVICES = [
  { name: 'identity', schema: identityConfig },
  { name: 'sms-delivery-gateway', schema: gatewayConfig },
  { name: 'airport-api', schema: airportConfig },
];

describe('docs/configuration.md, generated from the environment schemas', () => {
  it('is what `pnpm docs` renders from the schemas today (run `pnpm docs` after changing a config field)', () => {
    expect(readFileSync(join(REPO, 'docs', 'configuration.md'), 'utf8')).toBe(renderConfigurationPage(SERVICES));
  });

  it('documents every variable each service reads, with its default', () => {
    const rows = Object.fromEntries(SERVICES.map(({ name, schema }) => [name, environmentVariablesOf(schema)]));
    const identity = Object.fromEntries(rows.identity!.map((row) => [row.name, row.default]));
    expect(identity).toMatchObject({ PORT: '`4000`', DATABASE_URL: '`pglite:.data/identity`', KEY_ENCRYPTION_SECRET: 'unset' });
    expect(rows['sms-delivery-gateway']!.map((row) => row.name)).toEqual(
      expect.arrayContaining(['SMS_PROVIDER', 'TWILIO_ACCOUNT_SID', 'TWILIO_API_BASE_URL', 'WEBHOOK_URL', 'OUTBOX_TOKEN']),
    );
    expect(rows['airport-api']!.find((row) => row.name === 'AUTH_URL')?.default).toBe('required');
  });
});
