import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { ConformanceClient, type CompletedFlow } from '../../src/conformance/harness';
import { CONFIG_PLAN, conformanceTable, LOGOUT_PLAN } from '../../src/conformance/plans';
import { compat } from '../../src/fixtures';
import { describeWithChromium } from '../../src/web/browser';

// The OpenID Foundation's Config OP and RP-Initiated Logout OP certification plans, module by
// module (openid/conformance-suite: OIDCCDiscoveryEndpointVerification, OIDCCRpInitiatedLogout*),
// against identity's discovery document and its end_session_endpoint (/oidc/logout), in Chromium.

jest.setTimeout(120_000);

/** Server metadata names of the IANA registry (RFC 8414, OpenID Connect Discovery, RFC 9207, Logout specs) that identity publishes or may. */
const REGISTERED_METADATA = [
  'issuer', 'authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'jwks_uri', 'registration_endpoint', 'scopes_supported',
  'response_types_supported', 'response_modes_supported', 'grant_types_supported', 'acr_values_supported', 'subject_types_supported',
  'id_token_signing_alg_values_supported', 'userinfo_signing_alg_values_supported', 'request_object_signing_alg_values_supported',
  'token_endpoint_auth_methods_supported', 'token_endpoint_auth_signing_alg_values_supported', 'display_values_supported',
  'claim_types_supported', 'claims_supported', 'service_documentation', 'claims_locales_supported', 'ui_locales_supported',
  'claims_parameter_supported', 'request_parameter_supported', 'request_uri_parameter_supported', 'require_request_uri_registration',
  'op_policy_uri', 'op_tos_uri', 'revocation_endpoint', 'revocation_endpoint_auth_methods_supported', 'revocation_endpoint_auth_signing_alg_values_supported',
  'introspection_endpoint', 'code_challenge_methods_supported', 'end_session_endpoint', 'authorization_response_iss_parameter_supported',
  'frontchannel_logout_supported', 'frontchannel_logout_session_supported', 'backchannel_logout_supported', 'backchannel_logout_session_supported',
];

/** A state of RFC 6749 Appendix A VSCHARs, as CreateRandomEndSessionState makes one (no '+', ' ' or ';'). */
function endSessionState(): string {
  const length = randomInt(10, 31);
  return Array.from({ length }, () => {
    const c = String.fromCharCode(randomInt(0x20, 0x7f));
    return c === '+' || c === ' ' || c === ';' ? '~' : c;
  }).join('');
}

describeWithChromium('OpenID Connect conformance: Config OP and RP-Initiated Logout OP', () => {
  let suite: ConformanceClient;

  beforeAll(async () => {
    suite = await ConformanceClient.start('conformance-logout');
  });

  afterAll(async () => {
    await suite?.close();
  });

  const discoveryUrl = () => `${compat.issuer}.well-known/openid-configuration`;

  describe(CONFIG_PLAN.id, () => {
    it('oidcc-discovery-endpoint-verification', async () => {
      const res = await fetch(discoveryUrl());
      // EnsureDiscoveryEndpointResponseStatusCodeIs200, CheckDiscoveryEndpointReturnedJsonContentType
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const d = (await res.json()) as Record<string, string[]>;
      // OIDCCCheckDiscEndpointResponseTypesSupported: at least one OpenID Connect response type.
      expect(d.response_types_supported!.some((t) => ['code', 'code id_token', 'id_token', 'token id_token', 'code id_token token', 'code token'].includes(t))).toBe(true);
      // CheckDiscEndpointDiscoveryUrl, CheckDiscEndpointIssuer, CheckDiscEndpointIssuerIsValidUrl
      expect(new URL(discoveryUrl()).protocol).toBe('https:');
      expect(String(d.issuer).replace(/\/$/, '')).toBe(discoveryUrl().slice(0, -'.well-known/openid-configuration'.length).replace(/\/$/, ''));
      const issuer = new URL(String(d.issuer));
      expect([issuer.protocol, issuer.search, issuer.hash]).toEqual(['https:', '', '']);
      // CheckForUnexpectedParametersInServerMetadata
      expect(Object.keys(d).filter((k) => !REGISTERED_METADATA.includes(k))).toEqual([]);
      // CheckDiscEndpointSubjectTypesSupported, OIDCCCheckDiscEndpointIdTokenSigningAlgValuesSupported
      expect(d.subject_types_supported!.every((t) => ['public', 'pairwise'].includes(t))).toBe(true);
      expect(d.id_token_signing_alg_values_supported).toContain('RS256');
      // CheckDiscEndpointAuthorizationEndpoint, ...TokenEndpoint, ...UserinfoEndpoint, CheckJwksUri, CheckDiscEndpointAllEndpointsAreHttps
      for (const key of [...Object.keys(d).filter((k) => k.endsWith('_endpoint')), 'jwks_uri']) expect(new URL(String(d[key])).protocol).toBe('https:');
      expect(d).toHaveProperty('userinfo_endpoint');
      expect(d).not.toHaveProperty('registration_endpoint');
      // FetchServerKeys, ValidateJwksSequence: public keys only, each with kty and a distinct kid, usable for signatures.
      const jwks = (await (await fetch(String(d.jwks_uri))).json()) as { keys: Array<Record<string, unknown>> };
      expect(jwks.keys.length).toBeGreaterThan(0);
      for (const key of jwks.keys) {
        expect(key).toMatchObject({ kty: 'RSA', kid: expect.any(String), n: expect.any(String), e: expect.any(String) });
        for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(key).not.toHaveProperty(secret);
        if (key.use !== undefined) expect(key.use).toBe('sig');
      }
      expect(new Set(jwks.keys.map((k) => k.kid)).size).toBe(jwks.keys.length);
      // CheckDiscEndpointRequestParameterSupported, ...RequestUriParameterSupported, ...ClaimsParameterSupported (booleans)
      for (const key of ['request_parameter_supported', 'request_uri_parameter_supported', 'claims_parameter_supported']) expect(typeof d[key]).toBe('boolean');
      // OIDCCCheckDiscEndpointClaimsSupported, OIDCCCheckDiscEndpointGrantTypesSupported
      expect(Array.isArray(d.claims_supported)).toBe(true);
      expect(d.grant_types_supported!.length).toBeGreaterThan(0);
      // CheckDiscEndpointScopesSupportedContainsOpenId, CheckDiscEndpointScopesSupportedSyntax (RFC 6749 §3.3 scope-token)
      expect(d.scopes_supported).toContain('openid');
      for (const scope of d.scopes_supported!) expect(scope).toMatch(/^[\x21\x23-\x5B\x5D-\x7E]+$/);
      // EnsureServerConfigurationCodeChallengeMethodsSupportedIsAnArray
      expect(Array.isArray(d.code_challenge_methods_supported)).toBe(true);
    });
  });

  describe(LOGOUT_PLAN.id, () => {
    /** AbstractOIDCCRpInitiatedLogout: a normal authorization (state of 128 characters), the login session reused when there is one. */
    const authorization = (): Promise<CompletedFlow> => suite.flow(suite.authorizationRequest({ formPost: false, stateBytes: 96 }), false, { login: true });

    /** The end-session request of CreateEndSessionEndpointRequest: id_token_hint, post_logout_redirect_uri, state. */
    const endSessionRequest = (flow: CompletedFlow): Record<string, string> => ({
      id_token_hint: flow.idToken.value,
      post_logout_redirect_uri: suite.postLogoutRedirectUri,
      state: endSessionState(),
    });

    /** The second authorization, with prompt=none: the user was logged out, so an error that needs the user. */
    const expectLoggedOut = async () => {
      const r = suite.authorizationRequest({ formPost: false, extra: { prompt: 'none' }, stateBytes: 96 });
      const response = suite.responseOf(await suite.authorize(r), false);
      suite.checkErrorResponse(response, r.params.state);
      expect(['interaction_required', 'login_required', 'account_selection_required', 'consent_required']).toContain(response.error);
    };

    /** The module's placeholder: the OP shows an error page and never calls the post_logout_redirect_uri. */
    const expectRefused = async (params: Record<string, string>, shot: string) => {
      suite.drain();
      const { status, url } = await suite.endSession(params);
      expect(status).toBe(400);
      expect(url.origin).toBe(new URL(suite.discovery.issuer).origin);
      await suite.shot(shot);
      expect(suite.drain()).toEqual([]);
    };

    /** The module's placeholder: the "you are logged out" page; the session is over (checked beyond the module). */
    const expectSignedOutPage = async (params: Record<string, string>, shot: string) => {
      suite.drain();
      const { status } = await suite.endSession(params);
      expect(status).toBe(200);
      expect(await suite.page.locator('h1').innerText()).toMatch(/signed out/i);
      await suite.shot(shot);
      expect(suite.drain()).toEqual([]);
      await expectLoggedOut();
    };

    /** Back at the post_logout_redirect_uri, with the state or without (CheckPostLogoutState, CheckNoPostLogoutState, CheckForUnexpectedParametersInPostLogoutRedirect). */
    const expectRedirectBack = async (params: Record<string, string>) => {
      const back = suite.nextPostLogoutRedirect();
      await suite.endSession(params);
      const received = await back;
      expect(received.method).toBe('GET');
      expect(received.query).toEqual(params.state === undefined ? {} : { state: params.state });
      await expectLoggedOut();
    };

    const bodies: Record<string, () => Promise<void>> = {
      'oidcc-rp-initiated-logout-discovery-endpoint-verification': async () => {
        // CheckDiscEndpointAllEndpointsAreHttps, CheckDiscEndSessionEndpoint
        for (const key of Object.keys(suite.discovery).filter((k) => k.endsWith('_endpoint'))) expect(new URL(String(suite.discovery[key])).protocol).toBe('https:');
        expect(suite.discovery.end_session_endpoint).toBe(`${compat.issuer}oidc/logout`);
      },

      'oidcc-rp-initiated-logout': async () => {
        await expectRedirectBack(endSessionRequest(await authorization()));
      },

      'oidcc-rp-initiated-logout-bad-post-logout-redirect-uri': async () => {
        const params = { ...endSessionRequest(await authorization()), post_logout_redirect_uri: `${suite.rp.origin}/bad_post_logout_redirect_uri` };
        await expectRefused(params, 'bad-post-logout-redirect-uri');
      },

      'oidcc-rp-initiated-logout-modified-id-token-hint': async () => {
        // ChangeIdTokenToAlgNone
        const params = endSessionRequest(await authorization());
        const payload = params.id_token_hint!.split('.')[1];
        params.id_token_hint = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${payload}.`;
        await expectRefused(params, 'modified-id-token-hint');
      },

      'oidcc-rp-initiated-logout-no-id-token-hint': async () => {
        const { id_token_hint: _, ...params } = endSessionRequest(await authorization());
        await expectRefused(params, 'no-id-token-hint');
      },

      'oidcc-rp-initiated-logout-no-params': async () => {
        await authorization();
        await expectSignedOutPage({}, 'no-params');
      },

      'oidcc-rp-initiated-logout-no-post-logout-redirect-uri': async () => {
        const { post_logout_redirect_uri: _, ...params } = endSessionRequest(await authorization());
        await expectSignedOutPage(params, 'no-post-logout-redirect-uri');
      },

      'oidcc-rp-initiated-logout-no-state': async () => {
        const { state: _, ...params } = endSessionRequest(await authorization());
        await expectRedirectBack(params);
      },

      'oidcc-rp-initiated-logout-only-state': async () => {
        const { state } = endSessionRequest(await authorization());
        await expectSignedOutPage({ state: state! }, 'only-state');
      },

      'oidcc-rp-initiated-logout-query-added-to-post-logout-redirect-uri': async () => {
        const params = endSessionRequest(await authorization());
        params.post_logout_redirect_uri = `${params.post_logout_redirect_uri}?foo=bar`;
        await expectRefused(params, 'query-added-to-post-logout-redirect-uri');
      },

      'oidcc-rp-initiated-logout-bad-id-token-hint': async () => {
        // GenerateFakeIdTokenClaims, SignFakeIdToken: an ID token signed by the client (HS256 with its secret).
        const params = endSessionRequest(await authorization());
        const client = suite.clients.basic;
        const now = Math.floor(Date.now() / 1000);
        params.id_token_hint = await new SignJWT({ iss: client.clientId, sub: 'SubjectID', aud: suite.discovery.issuer, nonce: 'flibble', iat: now, exp: now + 300 })
          .setProtectedHeader({ alg: 'HS256' })
          .sign(new TextEncoder().encode(client.clientSecret));
        await expectRefused(params, 'bad-id-token-hint');
      },
    };

    for (const module of LOGOUT_PLAN.modules) {
      const body = bodies[module.id];
      if (!body) throw new Error(`no test for ${module.id}`);
      it(module.id, body);
    }
  });

  it('docs/hosted-login.md carries the table of the plans as these tests run them', () => {
    const docs = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'hosted-login.md'), 'utf8');
    expect(docs).toContain(conformanceTable());
  });
});
