/** What the tenant-file suites write: an API, three clients, an SMS connection, a grant and a role, secrets from variables. */
export const AIRPORT_API = 'https://airport-api.example.com';

export const VARIABLES = {
  GATEWAY_URL: 'http://127.0.0.1:4100/sms',
  GATEWAY_AUTH_SECRET: 'gateway-secret-from-the-environment-0001',
  M2M_CLIENT_SECRET: 'm2m-secret-from-the-environment-000000001',
};

export function tenantDocument() {
  return {
    resource_servers: [
      { name: 'Airport API', identifier: AIRPORT_API, scopes: [{ value: 'read:airports', description: 'Look up airport names' }] },
    ],
    clients: [
      { name: 'Demo', app_type: 'native' },
      { name: 'Demo Web App', app_type: 'spa', callbacks: ['http://localhost:4300/callback'], web_origins: ['http://localhost:4300'] },
      { name: 'Demo M2M', app_type: 'non_interactive', grant_types: ['client_credentials'], client_secret: '${M2M_CLIENT_SECRET}' },
    ],
    connections: [
      {
        name: 'sms',
        strategy: 'sms',
        options: {
          gateway_url: '${GATEWAY_URL}',
          from: '+14155550100',
          template: 'Your code is @@password@@',
          gateway_authentication: { method: 'bearer', subject: 'smsauth-identity', audience: '${GATEWAY_URL}', secret: '${GATEWAY_AUTH_SECRET}' },
        },
        enabled_clients: ['Demo', 'Demo Web App'],
      },
    ],
    client_grants: [{ client_id: 'Demo M2M', audience: AIRPORT_API, scope: ['read:airports'] }],
    roles: [
      {
        name: 'Airport reader',
        description: 'Reads airports',
        permissions: [{ resource_server_identifier: AIRPORT_API, permission_name: 'read:airports' }],
      },
    ],
  };
}
