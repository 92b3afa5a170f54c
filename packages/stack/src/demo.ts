#!/usr/bin/env node
// `pnpm demo`: a phone number signs in by SMS and calls the protected API, against a running stack;
// each step checked, timed and printed as what it shows.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  GatewayRejectionSchema,
  JwtRejectionReasons,
  OAuthTokenResponseSchema,
  PASSWORDLESS_OTP_GRANT,
  RoTokenResponseSchema,
  StartResponseSchema,
} from '@smsauth/contracts';
import type { z } from 'zod';
import { DEFAULT_API_AUDIENCE } from './launcher';
import { ManagementClient, requestJson } from './management-client';
import { readCodeFromOutbox } from './outbox';
import { repoRoot } from './processes';
import type { StackState } from './state';
import { freshDemoPhoneNumber } from './try-it';

const env = process.env;
const authUrl = (env.AUTH_URL ?? 'http://localhost:4000').replace(/\/$/, '');
const gatewayUrl = (env.GATEWAY_URL ?? 'http://localhost:4100').replace(/\/$/, '');
const baseUrl = (env.BASE_URL ?? 'http://localhost:4200').replace(/\/$/, '');
const apiAudience = env.API_AUDIENCE ?? DEFAULT_API_AUDIENCE;
const connection = env.CONNECTION ?? 'sms';
// A fresh number each run: a number may ask for 10 codes an hour, and every run asks for two.
const phone = env.PHONE_NUMBER ?? freshDemoPhoneNumber();

class StepFailed extends Error {}

let stepNumber = 0;
async function step<T>(title: string, run: () => Promise<T>): Promise<T> {
  stepNumber += 1;
  const started = performance.now();
  try {
    const result = await run();
    console.log(`  ok  ${stepNumber}. ${title} (${(performance.now() - started).toFixed(0)} ms)`);
    return result;
  } catch (err) {
    console.log(`  FAIL ${stepNumber}. ${title}: ${(err as Error).message}`);
    throw new StepFailed(title);
  }
}

function expectBody<S extends z.ZodType>(schema: S, res: { status: number; body: unknown }, status = 200): z.output<S> {
  if (res.status !== status) throw new Error(`expected HTTP ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  const parsed = schema.safeParse(res.body);
  if (!parsed.success) throw new Error(`unexpected body ${JSON.stringify(res.body)}: ${parsed.error.message}`);
  return parsed.data;
}

/** The demo client: DEMO_CLIENT_ID, or the one `pnpm start` seeded (found through .data/stack.json). */
async function demoClientId(): Promise<string> {
  if (env.DEMO_CLIENT_ID) return env.DEMO_CLIENT_ID;
  const stateFile = join(repoRoot, '.data', 'stack.json');
  const state: Partial<StackState> = existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, 'utf8')) : {};
  const adminId = env.ADMIN_CLIENT_ID ?? state.adminClientId;
  const adminSecret = env.ADMIN_CLIENT_SECRET ?? state.adminClientSecret;
  if (!adminId || !adminSecret) throw new Error('set DEMO_CLIENT_ID, or ADMIN_CLIENT_ID and ADMIN_CLIENT_SECRET');
  const clients = await new ManagementClient(authUrl, adminId, adminSecret).listClients();
  const demo = clients.find((c) => c.name === 'Demo');
  if (!demo) throw new Error('no client named Demo: start the stack with `pnpm start` first');
  return demo.client_id;
}

async function startLogin(clientId: string) {
  const sentAt = new Date(Date.now() - 1000);
  // One key per start: were this request retried (a reset, a balancer 503), the user would
  // still get one SMS.
  const res = await requestJson(`${authUrl}/passwordless/start`, {
    method: 'POST',
    headers: { 'Idempotency-Key': `demo-${randomUUID()}` },
    json: { client_id: clientId, connection, phone_number: phone, send: 'code', authParams: { scope: 'openid', state: 'demo' } },
  });
  if (res.status === 429) {
    const wait = res.headers.get('retry-after');
    throw new Error(`rate limited (429)${wait ? `: retry in ${wait} s` : ''}, or run with another PHONE_NUMBER. ${JSON.stringify(res.body)}`);
  }
  expectBody(StartResponseSchema, res);
  return sentAt;
}

async function main(): Promise<void> {
  console.log(`smsauth demo against ${authUrl}, ${gatewayUrl}, ${baseUrl}\n`);
  const clientId = await step('find the demo app (the client `pnpm start` seeded)', demoClientId);
  const firstSent = await step(`the app asks for a login code by SMS to ${phone} (POST /passwordless/start)`, () => startLogin(clientId));
  const firstCode = await step('the code arrives: read it from the gateway\'s dev outbox, where a real provider would text it', () =>
    readCodeFromOutbox(gatewayUrl, phone, { notBefore: firstSent, outboxToken: env.OUTBOX_TOKEN }),
  );
  await step('the user types the code and is signed in: the app gets an ID token (POST /oauth/ro)', async () => {
    const res = await requestJson(`${authUrl}/oauth/ro`, {
      method: 'POST',
      json: { client_id: clientId, connection, grant_type: 'password', username: phone, password: firstCode, scope: 'openid', device: 'pnpm demo' },
    });
    const body = expectBody(RoTokenResponseSchema, res);
    if (!body.id_token) throw new Error('no id_token in the response');
  });
  const secondSent = await step('a second login, for a token the airport API accepts (a code works only once)', () => startLogin(clientId));
  const secondCode = await step('the new code arrives', () => readCodeFromOutbox(gatewayUrl, phone, { notBefore: secondSent, outboxToken: env.OUTBOX_TOKEN }));
  const accessToken = await step(`the code buys an access token for the airport API (OTP grant at /oauth/token, audience ${apiAudience})`, async () => {
    const res = await requestJson(`${authUrl}/oauth/token`, {
      method: 'POST',
      json: { grant_type: PASSWORDLESS_OTP_GRANT, client_id: clientId, realm: connection, username: phone, otp: secondCode, audience: apiAudience, scope: 'openid' },
    });
    return expectBody(OAuthTokenResponseSchema, res).access_token;
  });
  await step('the app calls the protected API with that token and gets an answer (GET /airportName?iataCode=SFO)', async () => {
    const res = await fetch(`${baseUrl}/airportName?iataCode=SFO`, { headers: { authorization: `Bearer ${accessToken}` } });
    const text = await res.text();
    if (res.status !== 200 || text !== 'San Francisco International Airport') throw new Error(`got ${res.status} ${text}`);
    console.log(`       -> ${text}`);
  });
  await step('a caller without a token is refused with 401 (GET /airportName)', async () => {
    const res = await requestJson(`${baseUrl}/airportName?iataCode=SFO`);
    const body = expectBody(GatewayRejectionSchema, res, 401);
    if (body.message !== `JWT validation failed: ${JwtRejectionReasons.MISSING_CREDENTIALS}`) throw new Error(`message was ${body.message}`);
    console.log(`       -> ${res.status} ${JSON.stringify(body)}`);
  });
  console.log(`\nAll ${stepNumber} steps passed: ${phone} signed in with SMS codes, the airport API answered the signed-in user and refused a caller without a token.`);
}

main().catch((err: unknown) => {
  if (!(err instanceof StepFailed)) console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
