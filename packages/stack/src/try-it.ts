import { DEMO_PHONE_NUMBER } from './demo-number';
import type { LaunchedStack } from './launcher';

export { DEMO_PHONE_NUMBER };

/**
 * A valid San Francisco number in 555-01xx..555-99xx, different each call: `pnpm demo` uses one per
 * run so that the per-number limit (10 codes an hour) never locks a person out of the demo.
 */
export function freshDemoPhoneNumber(): string {
  return `+1415555${String(100 + Math.floor(Math.random() * 9900)).padStart(4, '0')}`;
}

/** Four shell steps a person can paste as they are (needs curl and node). */
export function tryItInstructions(stack: Pick<LaunchedStack, 'urls' | 'tenant' | 'apiAudience'>, phone = DEMO_PHONE_NUMBER): string {
  const { urls, tenant } = stack;
  const json = (value: unknown) => `'${JSON.stringify(value)}'`;
  const pick = (expr: string) => `node -pe '${expr}'`;
  return [
    '# 1. start a login: the code goes to the gateway, whose dev outbox keeps it',
    `curl -s -X POST ${urls.authUrl}/passwordless/start -H 'content-type: application/json' \\`,
    `  -d ${json({ client_id: tenant.demoClientId, connection: tenant.connectionName, phone_number: phone, send: 'code', authParams: { scope: 'openid', state: 'demo' } })}`,
    '',
    '# 2. read the code from the outbox',
    `CODE=$(curl -s '${urls.gatewayUrl}/outbox/messages?recipient=${encodeURIComponent(phone)}' | ${pick('JSON.parse(require("fs").readFileSync(0))[0].body.match(/\\d{6}/)[0]')})`,
    '',
    '# 3. exchange it for tokens, with the airport API as audience',
    `ACCESS_TOKEN=$(curl -s -X POST ${urls.authUrl}/oauth/token -H 'content-type: application/json' \\`,
    `  -d '{"grant_type":"http://auth0.com/oauth/grant-type/passwordless/otp","client_id":"${tenant.demoClientId}","realm":"${tenant.connectionName}","username":"${phone}","otp":"'"$CODE"'","audience":"${stack.apiAudience}","scope":"openid"}' \\`,
    `  | ${pick('JSON.parse(require("fs").readFileSync(0)).access_token')})`,
    '',
    '# 4. call the protected API',
    `curl -s '${urls.baseUrl}/airportName?iataCode=SFO' -H "Authorization: Bearer $ACCESS_TOKEN"; echo`,
  ].join('\n');
}
