import type { Response } from 'supertest';
import { ISSUER, type FlowHarness, type LoginSetup } from '../passwordless/flow-harness';

export const CALLBACK = 'https://app.example.com/callback';

/** The /authorize query of a valid id_token + token request; override parts per test. */
export function authorizeQuery(setup: LoginSetup, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const query: Record<string, string | undefined> = {
    client_id: setup.clientId,
    redirect_uri: CALLBACK,
    response_type: 'token id_token',
    state: 'state-123',
    nonce: 'nonce-456',
    scope: 'openid phone',
    ...extra,
  };
  return Object.fromEntries(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined));
}

/** The hidden fields of the forms on a page. */
export function formFields(html: string): { transaction: string; csrf_token: string } {
  const transaction = /name="transaction" value="([^"]+)"/.exec(html)?.[1];
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(html)?.[1];
  if (!transaction || !csrf) throw new Error(`no transaction form on the page:\n${html}`);
  return { transaction, csrf_token: csrf };
}

/**
 * The parameters of an authorization response less `iss`, which every response, success or
 * error, must carry as this issuer (RFC 9207); checked here so every test of a response checks it.
 */
export function responseParameters(params: URLSearchParams | Record<string, string>): Record<string, string> {
  const { iss, ...rest } = params instanceof URLSearchParams ? Object.fromEntries(params) : params;
  if (iss !== ISSUER) throw new Error(`the authorization response's iss is ${JSON.stringify(iss)}, not ${ISSUER}`);
  return rest;
}

/** The parameters of a redirect's fragment (less `iss`, checked). */
export function fragmentOf(location: string | undefined): Record<string, string> {
  if (!location) throw new Error('no Location header');
  const index = location.indexOf('#');
  if (index < 0) throw new Error(`no fragment in ${location}`);
  return responseParameters(new URLSearchParams(location.slice(index + 1)));
}

/** The query parameters of a redirect (less `iss`, checked); it has no fragment. */
export function queryOf(location: string | undefined): Record<string, string> {
  if (!location) throw new Error('no Location header');
  if (location.includes('#')) throw new Error(`a fragment in ${location}`);
  return responseParameters(new URL(location).searchParams);
}

/**
 * What a browser does for the hosted login, over real HTTP: keeps the cookies the pages set
 * (path /authorize), sends them back, and reads the hidden form fields off each page.
 */
export class LoginSession {
  readonly cookies = new Map<string, string>();
  /** Fields of the last page that had a form. */
  fields?: { transaction: string; csrf_token: string };
  last?: Response;

  constructor(
    readonly h: FlowHarness,
    readonly ip: string,
  ) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private absorb(res: Response): Response {
    const setCookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    for (const line of setCookies) {
      const [pair] = line.split(';');
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      if (/max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    if (typeof res.text === 'string' && res.text.includes('name="csrf_token"')) this.fields = formFields(res.text);
    this.last = res;
    return res;
  }

  async get(path: string, query: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Response> {
    const req = this.h.http().get(path).query(query).set('X-Forwarded-For', this.ip).set(headers);
    if (this.cookies.size) req.set('Cookie', this.cookieHeader());
    return this.absorb(await req);
  }

  /** Posts a form of the current page (its hidden fields unless overridden). */
  async post(path: string, fields: Record<string, string> = {}, options: { cookies?: boolean } = {}): Promise<Response> {
    const req = this.h.http().post(path).type('form').set('X-Forwarded-For', this.ip);
    if (options.cookies !== false && this.cookies.size) req.set('Cookie', this.cookieHeader());
    return this.absorb(await req.send({ ...this.fields, ...fields }));
  }

  async open(query: Record<string, string>): Promise<Response> {
    return this.get('/authorize', query);
  }

  /** Step 1: submits the number (for `country`, as the page's select sends it); answers the code page it leads to. */
  async submitPhone(phone: string, country?: string): Promise<Response> {
    const res = await this.post('/authorize/phone', { phone_number: phone, ...(country !== undefined ? { country } : {}) });
    if (res.status !== 303) return res;
    return this.get(res.headers.location!.split('?')[0]!, Object.fromEntries(new URLSearchParams(res.headers.location!.split('?')[1])));
  }

  submitCode(code: string): Promise<Response> {
    return this.post('/authorize/code', { code });
  }
}
