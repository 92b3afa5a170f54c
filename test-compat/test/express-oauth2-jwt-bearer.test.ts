import type { Server } from 'node:http';
import express from 'express';
import { auth } from 'express-oauth2-jwt-bearer';
import { compat, randomPhone } from '../src/fixtures';
import { machineAccessToken, signInWithAuthJs } from '../src/sdk';

// An Express API protected exactly as Auth0's quickstart shows: discovery from the issuer's
// https URL, keys from its JWKS, issuer and audience checked.

let server: Server;
let apiUrl: string;

beforeAll(async () => {
  const app = express();
  app.get('/private', auth({ issuerBaseURL: `https://${compat.domain}`, audience: compat.apiAudience }), (req, res) => {
    res.json({ sub: req.auth?.payload.sub });
  });
  server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const address = server.address();
  apiUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/private`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const callApi = (token: string) => fetch(apiUrl, { headers: { authorization: `Bearer ${token}` } });

/** The token with one character of its payload changed: the signature no longer matches. */
function tampered(token: string): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const i = Math.floor(payload.length / 2);
  const changed = payload.slice(0, i) + (payload[i] === 'A' ? 'B' : 'A') + payload.slice(i + 1);
  return [header, changed, signature].join('.');
}

describe('express-oauth2-jwt-bearer auth()', () => {
  it("accepts a user's access token from an SMS sign-in", async () => {
    const tokens = await signInWithAuthJs(randomPhone());
    const res = await callApi(tokens.accessToken);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ sub: tokens.claims!.sub });
  });

  it('accepts a machine-to-machine access token from client credentials', async () => {
    const res = await callApi(await machineAccessToken());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ sub: expect.stringMatching(/@clients$/) });
  });

  it('refuses a tampered access token with 401 invalid_token', async () => {
    const res = await callApi(tampered(await machineAccessToken()));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });
});
