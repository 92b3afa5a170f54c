// Seeds a running stack through its management API with what `pnpm start`'s tenant file holds: the Demo
// client, the `sms` connection to the gateway, the "Airport API" resource server (API_AUDIENCE)
// and an M2M client grant. Idempotent. Used by test-containers.sh before the e2e suite, whose
// API-audience cases need that resource server; prints the demo client id.
// Reads AUTH_URL, ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, GATEWAY_DELIVERY_URL,
// GATEWAY_AUTH_SECRET, GATEWAY_AUTH_AUDIENCE, GATEWAY_AUTH_SUBJECT and API_AUDIENCE.
const path = require('node:path');
const { seedDemoTenant } = require(path.join(__dirname, '../../packages/stack/dist/index.js'));

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

seedDemoTenant({
  authUrl: required('AUTH_URL'),
  adminClientId: required('ADMIN_CLIENT_ID'),
  adminClientSecret: required('ADMIN_CLIENT_SECRET'),
  gatewayDeliveryUrl: required('GATEWAY_DELIVERY_URL'),
  gatewayAuthSecret: required('GATEWAY_AUTH_SECRET'),
  gatewayAuthAudience: required('GATEWAY_AUTH_AUDIENCE'),
  gatewayAuthSubject: required('GATEWAY_AUTH_SUBJECT'),
  apiAudience: required('API_AUDIENCE'),
}).then(
  (tenant) => console.log(tenant.demoClientId),
  (err) => {
    console.error(`seeding failed: ${err.message}`);
    process.exit(1);
  },
);
