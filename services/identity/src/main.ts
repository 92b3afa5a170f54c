import { runService } from '@smsauth/service-kit';
import { configSchema } from './config';
import { startIdentity } from './start';

void runService({
  name: 'identity',
  configSchema,
  redact: ['private_key', 'privateKey', 'KEY_ENCRYPTION_SECRET', 'KEY_ENCRYPTION_FALLBACK_SECRET', 'ADMIN_CLIENT_SECRET', 'gateway_secret'],
  build: (config, logger) => startIdentity(config, logger),
});
