import { createHash, randomBytes } from 'node:crypto';
import { MANAGEMENT_AUDIENCE } from '../helpers';
import type { FlowHarness, LoginSetup } from '../passwordless/flow-harness';
import { CALLBACK, LoginSession } from '../authorize/login-session';

/** What an operator's sign-in through the hosted login answers. */
export interface OperatorTokens {
  access_token: string;
  refresh_token?: string;
  scope: string;
}

/** A user of the setup's connection, made through the management API: its id. */
export async function createUser(h: FlowHarness, setup: LoginSetup, phone: string): Promise<string> {
  const res = await h.management('post', '/users', { connection: setup.connection, phone_number: phone });
  if (res.status !== 201) throw new Error(`user create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.user_id as string;
}

/** Where a sign-in returns to and where its code is read (the harness's gateway by default). */
export interface SignInOptions {
  redirectUri?: string;
  codeSentTo?: (phone: string) => string;
}

/**
 * Signs `phone` in through the hosted login with code + PKCE, as a SPA does, for `audience`
 * (the management API by default), and exchanges the code: the token endpoint's answer.
 */
export async function signInWithPkce(
  h: FlowHarness,
  setup: Pick<LoginSetup, 'clientId'>,
  who: { phone: string; ip: string },
  scope: string,
  audience = MANAGEMENT_AUDIENCE,
  options: SignInOptions = {},
): Promise<{ status: number; body: OperatorTokens & Record<string, unknown> }> {
  const redirectUri = options.redirectUri ?? CALLBACK;
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const browser = new LoginSession(h, who.ip);
  const page = await browser.open({
    client_id: setup.clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope,
    audience,
    state: 'state-1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  if (page.status !== 200) return { status: page.status, body: { location: page.headers.location } as never };
  await browser.submitPhone(who.phone);
  const done = await browser.submitCode((options.codeSentTo ?? ((phone: string) => h.codeSentTo(phone)))(who.phone));
  const code = new URL(done.headers.location!).searchParams.get('code');
  if (!code) return { status: done.status, body: { location: done.headers.location } as never };
  const res = await h
    .http()
    .post('/oauth/token')
    .send({ grant_type: 'authorization_code', client_id: setup.clientId, code, redirect_uri: redirectUri, code_verifier: verifier });
  return { status: res.status, body: res.body };
}

/** The scopes of a token answer that are management scopes, sorted. */
export function managementScopesOf(scope: string, managementScopes: readonly string[]): string[] {
  return scope
    .split(' ')
    .filter((s) => managementScopes.includes(s))
    .sort();
}
