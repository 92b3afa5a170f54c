#!/usr/bin/env node
// `pnpm demo`: the spec's flow against a running stack, each step checked and timed.
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
  const clientId = await step('find the demo client', demoClientId);
  const firstSent = await step(`POST /passwordless/start for ${phone}`, () => startLogin(clientId));
  const firstCode = await step('read the code from the gateway outbox', () =>
    readCodeFromOutbox(gatewayUrl, phone, { notBefore: firstSent, outboxToken: env.OUTBOX_TOKEN }),
  );
  await step('POST /oauth/ro with the phone number and code', async () => {
    const res = await requestJson(`${authUrl}/oauth/ro`, {
      method: 'POST',
      json: { client_id: clientId, connection, grant_type: 'password', username: phone, password: firstCode, scope: 'openid', device: 'pnpm demo' },
    });
    const body = expectBody(RoTokenResponseSchema, res);
    if (!body.id_token) throw new Error('no id_token in the response');
  });
  const secondSent = await step('start again for an API token (codes are single use)', () => startLogin(clientId));
  const secondCode = await step('read the new code', () => readCodeFromOutbox(gatewayUrl, phone, { notBefore: secondSent, outboxToken: env.OUTBOX_TOKEN }));
  const accessToken = await step(`OTP grant at /oauth/token with audience ${apiAudience}`, async () => {
    const res = await requestJson(`${authUrl}/oauth/token`, {
      method: 'POST',
      json: { grant_type: PASSWORDLESS_OTP_GRANT, client_id: clientId, realm: connection, username: phone, otp: secondCode, audience: apiAudience, scope: 'openid' },
    });
    return expectBody(OAuthTokenResponseSchema, res).access_token;
  });
  await step('GET /airportName?iataCode=SFO with the token', async () => {
    const res = await fetch(`${baseUrl}/airportName?iataCode=SFO`, { headers: { authorization: `Bearer ${accessToken}` } });
    const text = await res.text();
    if (res.status !== 200 || text !== 'San Francisco International Airport') throw new Error(`got ${res.status} ${text}`);
    console.log(`       -> ${text}`);
  });
  await step('GET /airportName without a token is rejected (spec 2.8)', async () => {
    const res = await requestJson(`${baseUrl}/airportName?iataCode=SFO`);
    const body = expectBody(GatewayRejectionSchema, res, 401);
    if (body.message !== `JWT validation failed: ${JwtRejectionReasons.MISSING_CREDENTIALS}`) throw new Error(`message was ${body.message}`);
    console.log(`       -> ${res.status} ${JSON.stringify(body)}`);
  });
  console.log('\nEvery step behaved as the spec says.');
}

main().catch((err: unknown) => {
  if (!(err instanceof StepFailed)) console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
