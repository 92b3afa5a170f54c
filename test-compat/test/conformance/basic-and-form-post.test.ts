import { ConformanceClient, expectInvalidGrant, pkcePair, sleep, type AuthorizationRequest, type CompletedFlow, type IdToken } from '../../src/conformance/harness';
import { BASIC_PLAN, FORM_POST_PLAN, type ConformancePlan } from '../../src/conformance/plans';
import { describeWithChromium } from '../../src/web/browser';

// The OpenID Foundation's Basic OP and Form Post OP certification plans, module by module: the
// same requests as the suite's modules (openid/conformance-suite, src/main/java/net/openid/
// conformance/openid/OIDCC*.java) with their checks, against the hosted login in Chromium. The
// Form Post plan is the Basic plan with response_mode=form_post. One browser for both: modules
// that allow it reuse the login session (SSO), as the suite's own browser would.

jest.setTimeout(120_000);

/** Claims an ID token may carry besides those of the scopes asked for (EnsureIdTokenDoesNotContainNonRequestedClaims). */
const ID_TOKEN_CLAIMS = ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'acr', 'amr', 'azp', 'at_hash', 'c_hash', 'nbf', 'jti', 'sid', 's_hash'];
const SCOPE_CLAIMS: Record<string, string[]> = {
  profile: ['name', 'given_name', 'family_name', 'middle_name', 'nickname', 'profile', 'picture', 'website', 'gender', 'birthdate', 'zoneinfo', 'locale', 'updated_at', 'preferred_username'],
  phone: ['phone_number', 'phone_number_verified'],
};
/** Errors that say the request needs the user (CheckErrorFromAuthorizationEndpointIsOneThatRequiredAUserInterface). */
const NEEDS_USER = ['interaction_required', 'login_required', 'account_selection_required', 'consent_required'];

describeWithChromium('OpenID Connect conformance: Basic OP and Form Post OP', () => {
  let suite: ConformanceClient;
  /** oidcc-codereuse-30seconds of each plan: the first use, made at the start so the 30 s overlap the other modules. */
  const firstUses = new Map<string, { flow: CompletedFlow; code: string; at: number }>();

  beforeAll(async () => {
    suite = await ConformanceClient.start('conformance-basic');
    for (const plan of [BASIC_PLAN, FORM_POST_PLAN]) {
      const formPost = plan === FORM_POST_PLAN;
      const flow = await suite.flow(suite.authorizationRequest({ formPost }), formPost, { login: true });
      firstUses.set(plan.id, { flow, code: flow.response.code!, at: Date.now() });
    }
  });

  afterAll(async () => {
    await suite?.close();
  });

  const scopesSupported = () => suite.discovery.scopes_supported ?? [];
  /** OIDCCCheckScopesSupportedContainScopeTest: the module is skipped unless every scope it asks for is in scopes_supported. */
  const scopeTestSkipped = (scope: string) => !scope.split(' ').every((s) => scopesSupported().includes(s));

  /** The first authorization of a module that authorizes twice; the session it leaves is reused. */
  const firstAuthorization = (formPost: boolean, extra: Record<string, string> = {}) =>
    suite.flow(suite.authorizationRequest({ formPost, extra }), formPost, { login: true });

  /** VerifyScopesReturnedInUserInfoClaims: every standard claim of the scopes asked for. */
  const expectScopeClaims = (claims: Record<string, unknown>, scope: string, only: string[]) => {
    for (const s of scope.split(' ')) for (const claim of SCOPE_CLAIMS[s] ?? []) if (only.includes(claim)) expect(claims).toHaveProperty(claim);
  };

  /** EnsureIdTokenDoesNotContainNonRequestedClaims. */
  const expectOnlyRequestedClaims = (idToken: IdToken, scope: string) => {
    const allowed = [...ID_TOKEN_CLAIMS, ...scope.split(' ').flatMap((s) => SCOPE_CLAIMS[s] ?? [])];
    expect(Object.keys(idToken.claims).filter((k) => !allowed.includes(k))).toEqual([]);
  };

  /** AbstractOIDCCSameAuthTwiceServerTest.validateFirstAndSecondIdTokens. */
  const expectSameAuthentication = (first: IdToken, second: IdToken) => {
    expect(second.claims.sub).toBe(first.claims.sub);
    if (second.claims.auth_time !== undefined) expect(second.claims.auth_time).toBe(first.claims.auth_time);
  };

  /** The modules of the Basic plan, run with the plan's response mode. */
  function modules(plan: ConformancePlan): Record<string, () => Promise<void>> {
    const formPost = plan === FORM_POST_PLAN;
    const request = (options: Omit<Parameters<ConformanceClient['authorizationRequest']>[0], 'formPost'> = {}) => suite.authorizationRequest({ formPost, ...options });
    const happy = (r: AuthorizationRequest, options: Parameters<ConformanceClient['flow']>[2] = {}) => suite.flow(r, formPost, { login: true, ...options });

    return {
      'oidcc-server': async () => {
        const flow = await happy(request());
        // OIDCCServerTest: at_hash and c_hash are optional in the token endpoint's ID token; EnsureIdTokenDoesNotContainName.
        expect(flow.idToken.claims.name).toBeUndefined();
        expectOnlyRequestedClaims(flow.idToken, 'openid');
        expect(flow.idToken.claims.sid).toEqual(expect.any(String));
      },

      'oidcc-response-type-missing': async () => {
        const r = request({ omit: ['response_type'] });
        // No response type, so no response mode to infer: the error comes back in the query (or by form_post when asked).
        const response = suite.responseOf(await suite.authorize(r), formPost);
        suite.checkErrorResponse(response, r.params.state);
        expect(['invalid_request', 'unsupported_response_type']).toContain(response.error);
      },

      'oidcc-idtoken-signature': async () => {
        // Not applicable to a static client (VariantNotApplicable); what it checks: kid and RS256 (EnsureIdTokenContainsKid, EnsureIdTokenSignatureIsRS256).
        const flow = await happy(request());
        expect(flow.idToken.value.split('.')).toHaveLength(3);
      },

      'oidcc-idtoken-unsigned': async () => {
        // Not applicable to a static client; its skip rule (OIDCCCheckIdTokenSigningAlgValuesSupportedAlgNone) would apply anyway.
        expect(suite.discovery.id_token_signing_alg_values_supported).not.toContain('none');
      },

      'oidcc-userinfo-get': async () => {
        const flow = await happy(request());
        await suite.checkUserinfo(flow.accessToken, flow.idToken, 'get');
      },

      'oidcc-userinfo-post-header': async () => {
        const flow = await happy(request());
        await suite.checkUserinfo(flow.accessToken, flow.idToken, 'post-header');
      },

      'oidcc-userinfo-post-body': async () => {
        const flow = await happy(request());
        await suite.checkUserinfo(flow.accessToken, flow.idToken, 'post-body');
      },

      'oidcc-ensure-request-without-nonce-succeeds-for-code-flow': async () => {
        const r = request({ omit: ['nonce'] });
        const response = suite.responseOf(await suite.authorize(r, { login: true }), formPost);
        suite.checkSuccessResponse(r, response);
      },

      'oidcc-scope-profile': async () => {
        expect(scopeTestSkipped('openid profile')).toBe(false);
        const flow = await happy(request({ scope: 'openid profile' }));
        const info = await suite.checkUserinfo(flow.accessToken, flow.idToken);
        // The profile claims an SMS user has (docs/identity.md, "Claims by scope"); VerifyScopesReturnedInUserInfoClaims
        // warns about the others, which an SMS user does not have (the module's warning, documented).
        expectScopeClaims(info, 'profile', ['name', 'nickname', 'updated_at']);
        expect(SCOPE_CLAIMS.profile!.filter((c) => !(c in info))).toEqual(
          ['given_name', 'family_name', 'middle_name', 'profile', 'picture', 'website', 'gender', 'birthdate', 'zoneinfo', 'locale', 'preferred_username'],
        );
      },

      'oidcc-scope-email': async () => {
        expect(scopeTestSkipped('openid email')).toBe(true);
      },

      'oidcc-scope-address': async () => {
        expect(scopeTestSkipped('openid address')).toBe(true);
      },

      'oidcc-scope-phone': async () => {
        expect(scopeTestSkipped('openid phone')).toBe(false);
        const flow = await happy(request({ scope: 'openid phone' }));
        const info = await suite.checkUserinfo(flow.accessToken, flow.idToken);
        expectScopeClaims(info, 'phone', SCOPE_CLAIMS.phone!);
        expect(info.phone_number).toBe(suite.phone);
      },

      'oidcc-scope-all': async () => {
        expect(scopeTestSkipped('openid email phone address profile')).toBe(true);
      },

      'oidcc-alternate-happy-flow': async () => {
        // It extends oidcc-scope-email, so its skip rule is that module's (no email scope). What it
        // checks still holds: scopes reversed and the parameters in another order.
        expect(scopeTestSkipped('openid email')).toBe(true);
        const r = request({ scope: 'phone openid' });
        const reordered = Object.fromEntries(Object.entries(r.params).reverse());
        const flow = await happy({ ...r, params: reordered });
        const info = await suite.checkUserinfo(flow.accessToken, flow.idToken);
        expect(info.phone_number).toBe(suite.phone);
      },

      'oidcc-display-page': async () => {
        await happy(request({ extra: { display: 'page' } }));
      },

      'oidcc-display-popup': async () => {
        await happy(request({ extra: { display: 'popup' } }));
      },

      'oidcc-prompt-login': async () => {
        const first = await firstAuthorization(formPost);
        await sleep(1000); // WaitForOneSecond
        const second = await suite.flow(request({ extra: { prompt: 'login' } }), formPost, { login: 'required' });
        // CheckSecondIdTokenAuthTimeIsLaterIfPresent
        expect(second.idToken.claims.auth_time).toBeGreaterThan(first.idToken.claims.auth_time as number);
      },

      'oidcc-prompt-none-not-logged-in': async () => {
        await suite.withFreshBrowser(async () => {
          const r = request({ extra: { prompt: 'none' }, stateBytes: 96 });
          expect(r.params.state).toHaveLength(128);
          const response = suite.responseOf(await suite.authorize(r), formPost);
          suite.checkErrorResponse(response, r.params.state);
          expect(NEEDS_USER).toContain(response.error);
        });
      },

      'oidcc-prompt-none-logged-in': async () => {
        const first = await firstAuthorization(formPost);
        const second = await suite.flow(request({ extra: { prompt: 'none' } }), formPost);
        expectSameAuthentication(first.idToken, second.idToken);
      },

      'oidcc-max-age-1': async () => {
        const first = await firstAuthorization(formPost);
        await sleep(2000); // WaitFor2Seconds
        const second = await suite.flow(request({ extra: { max_age: '1' } }), formPost, { login: 'required' });
        // CheckIdTokenAuthTimeClaimPresentDueToMaxAge, CheckSecondIdTokenAuthTimeIsLaterIfPresent, CheckIdTokenAuthTimeIsRecentIfPresent
        expect(second.idToken.claims.auth_time).toEqual(expect.any(Number));
        expect(second.idToken.claims.auth_time).toBeGreaterThan(first.idToken.claims.auth_time as number);
        expect(second.idToken.claims.auth_time).toBeGreaterThan(Date.now() / 1000 - 301);
      },

      'oidcc-max-age-10000': async () => {
        const first = await firstAuthorization(formPost, { max_age: '15000' });
        expect(first.idToken.claims.auth_time).toEqual(expect.any(Number));
        const second = await suite.flow(request({ extra: { max_age: '10000' } }), formPost);
        expect(second.idToken.claims.auth_time).toEqual(expect.any(Number));
        expectSameAuthentication(first.idToken, second.idToken);
      },

      'oidcc-ensure-request-with-unknown-parameter-succeeds': async () => {
        await happy(request({ extra: { extra: 'foobar' } }));
      },

      'oidcc-id-token-hint': async () => {
        const first = await firstAuthorization(formPost);
        const second = await suite.flow(request({ extra: { prompt: 'none', id_token_hint: first.idToken.value } }), formPost);
        expectSameAuthentication(first.idToken, second.idToken);
      },

      'oidcc-login-hint': async () => {
        // server.login_hint of the module's configuration: the user's number, what this login knows users by.
        await happy(request({ extra: { login_hint: suite.phone } }));
      },

      'oidcc-ui-locales': async () => {
        await happy(request({ extra: { ui_locales: 'se' } }));
      },

      'oidcc-claims-locales': async () => {
        await happy(request({ extra: { claims_locales: 'se' } }));
      },

      'oidcc-ensure-request-with-acr-values-succeeds': async () => {
        // OIDCCAddAcrValuesToAuthorizationEndpointRequest: the advertised acr_values_supported.
        const acrValues = (suite.discovery.acr_values_supported as string[] | undefined) ?? ['1', '2'];
        const flow = await happy(request({ extra: { acr_values: acrValues.join(' ') } }));
        // ValidateIdTokenACRClaimAgainstAcrValuesRequest (a warning in the suite; required here).
        expect(acrValues).toContain(flow.idToken.claims.acr);
      },

      'oidcc-codereuse': async () => {
        const flow = await happy(request());
        expectInvalidGrant(await suite.codeGrant(flow.request.client, flow.response.code!));
      },

      'oidcc-codereuse-30seconds': async () => {
        const first = firstUses.get(plan.id)!;
        await sleep(Math.max(0, first.at + 30_000 - Date.now())); // WaitFor30Seconds
        expectInvalidGrant(await suite.codeGrant(first.flow.request.client, first.code));
        // The access token the code first gave is revoked (EnsureHttpStatusCodeIs4xx).
        const info = await suite.userinfo(first.flow.accessToken);
        expect(info.status).toBeGreaterThanOrEqual(400);
        expect(info.status).toBeLessThan(500);
      },

      'oidcc-ensure-registered-redirect-uri': async () => {
        const r = request();
        r.params.redirect_uri = `${suite.rp.origin}/callback/${Math.random().toString(36).slice(2, 12)}`;
        const text = await suite.expectErrorPage(suite.authorizationUrl(r.params), `${plan.id}-unregistered-redirect-uri`);
        expect(text).toMatch(/callback URL mismatch/i);
      },

      'oidcc-ensure-post-request-succeeds': async () => {
        await happy(request(), { method: 'POST' });
      },

      'oidcc-server-client-secret-post': async () => {
        // EnsureServerConfigurationSupportsClientSecretPost
        expect(suite.discovery.token_endpoint_auth_methods_supported).toContain('client_secret_post');
        await happy(request({ client: suite.clients.post }));
      },

      'oidcc-request-uri-unsigned-supported-correctly-or-rejected-as-unsupported': async () => {
        // Not applicable to a static client. Its accepted outcome: request_uri_not_supported, which discovery announces.
        expect(suite.discovery.request_uri_parameter_supported).toBe(false);
        const r = request();
        const response = suite.responseOf(await suite.authorize({ ...r, params: { ...r.params, request_uri: `${suite.rp.origin}/request-object.jwt` } }), formPost);
        expect(response.error).toBe('request_uri_not_supported');
      },

      'oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported': async () => {
        // skipTestIfNoneUnsupported does not apply (discovery names no request_object_signing_alg_values_supported),
        // so the module sends the object; request_not_supported makes it skip.
        expect(suite.discovery.request_object_signing_alg_values_supported).toBeUndefined();
        expect(suite.discovery.request_parameter_supported).toBe(false);
        const r = request();
        const response = suite.responseOf(await suite.authorize(requestObjectByValue(r)), formPost);
        expect(response.error).toBe('request_not_supported');
        expect(response.iss).toBe(suite.discovery.issuer);
      },

      'oidcc-claims-essential': async () => {
        const claims = JSON.stringify({ userinfo: { name: { essential: true } } });
        const flow = await happy(request({ extra: { claims } }));
        const info = await suite.checkUserinfo(flow.accessToken, flow.idToken);
        // EnsureUserInfoContainsName, EnsureIdTokenDoesNotContainName
        expect(info.name).toEqual(expect.any(String));
        expect(flow.idToken.claims.name).toBeUndefined();
      },

      'oidcc-ensure-request-object-with-redirect-uri': async () => {
        // The redirect_uri outside the object is not registered: an error page (the module's placeholder), never the registered one.
        const r = request();
        const object = requestObjectByValue(r);
        object.params.redirect_uri = `${r.params.redirect_uri}/_invalid`;
        const text = await suite.expectErrorPage(suite.authorizationUrl(object.params), `${plan.id}-request-object-redirect-uri`);
        expect(text).toMatch(/callback URL mismatch/i);
      },

      'oidcc-refresh-token': async () => {
        // SetScopeInClientConfigurationToOpenIdOfflineAccessIfServerSupportsOfflineAccess, AddPromptConsentToAuthorizationEndpointRequestIfScopeContainsOfflineAccess
        expect(scopesSupported()).toContain('offline_access');
        expect(suite.discovery.grant_types_supported).toContain('refresh_token');
        const scope = 'openid offline_access';
        const refreshOf = async (flow: CompletedFlow) => {
          const refreshToken = String(flow.tokens.body.refresh_token);
          expect(refreshToken).toMatch(/^[\x20-\x7E]+$/);
          await sleep(1000); // WaitForOneSecond: the new ID token's iat differs
          const refreshed = await suite.tokenRequest(flow.request.client, { grant_type: 'refresh_token', refresh_token: refreshToken, ...(flow.request.client === suite.clients.basic ? { scope } : {}) });
          expect(refreshed.status).toBe(200);
          expect(refreshed.headers.get('content-type')).toMatch(/^application\/json/);
          expect(refreshed.headers.get('cache-control')).toMatch(/no-store/);
          expect(String(refreshed.body.token_type)).toMatch(/^bearer$/i);
          expect(refreshed.body.access_token).toEqual(expect.any(String));
          expect(refreshed.body.expires_in).toBeGreaterThan(0);
          if (refreshed.body.id_token) {
            // CompareIdTokenClaims (OIDC Core §12.2)
            const second = await suite.checkIdToken(String(refreshed.body.id_token), flow.request.client, undefined);
            for (const claim of ['iss', 'sub', 'aud', 'azp'] as const) expect(second.claims[claim]).toEqual(flow.idToken.claims[claim]);
            expect(second.claims.iat).not.toBe(flow.idToken.claims.iat);
            if (second.claims.auth_time !== undefined) expect(second.claims.auth_time).toBe(flow.idToken.claims.auth_time);
          }
          const info = await suite.userinfo(String(refreshed.body.access_token));
          expect(info.status).toBe(200);
          return refreshToken;
        };
        const first = await happy(request({ scope, extra: { prompt: 'consent' } }));
        expect(first.tokens.body.refresh_token).toEqual(expect.any(String));
        await refreshOf(first);
        const secondClient = suite.clients.second;
        const second = await happy({ client: secondClient, params: { ...request({ client: secondClient, scope, extra: { prompt: 'consent' } }).params } });
        const secondToken = await refreshOf(second);
        // RefreshTokenRequestExpectingErrorSteps: client 2's refresh token presented by client 1.
        expectInvalidGrant(await suite.tokenRequest(suite.clients.basic, { grant_type: 'refresh_token', refresh_token: secondToken, scope }));
      },

      'oidcc-ensure-request-with-valid-pkce-succeeds': async () => {
        const pkce = pkcePair();
        await happy(request({ extra: { code_challenge: pkce.challenge, code_challenge_method: 'S256' } }), { tokenExtra: { code_verifier: pkce.verifier } });
      },
    };
  }

  // Each plan's modules in the suite's order, but oidcc-codereuse-30seconds of both at the end:
  // their 30 seconds (started in beforeAll) pass while the other modules run.
  const LAST = 'oidcc-codereuse-30seconds';
  const declare = (plan: ConformancePlan, ids: (id: string) => boolean) =>
    describe(plan.id, () => {
      const bodies = modules(plan);
      for (const module of plan.modules.filter((m) => ids(m.id))) {
        const body = bodies[module.id];
        if (!body) throw new Error(`no test for ${module.id}`);
        it(module.id, body);
      }
    });
  for (const plan of [BASIC_PLAN, FORM_POST_PLAN]) declare(plan, (id) => id !== LAST);
  for (const plan of [BASIC_PLAN, FORM_POST_PLAN]) declare(plan, (id) => id === LAST);
});

/**
 * ConvertAuthorizationEndpointRequestToRequestObject, SerializeRequestObjectWithNullAlgorithm,
 * BuildRequestObjectByValueRedirectToAuthorizationEndpoint: every parameter in an unsigned JWT,
 * only response_type, client_id, scope and redirect_uri repeated outside it.
 */
function requestObjectByValue(r: AuthorizationRequest): AuthorizationRequest {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const object = `${encode({ alg: 'none' })}.${encode(r.params)}.`;
  const { response_type, client_id, scope, redirect_uri } = r.params;
  return { client: r.client, params: { client_id: client_id!, redirect_uri: redirect_uri!, request: object, response_type: response_type!, scope: scope! } };
}
