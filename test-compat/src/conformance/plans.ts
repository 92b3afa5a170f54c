/**
 * The OpenID Foundation's certification test plans this repository replays module by module
 * (test-compat/test/conformance/), with what each module ends with against identity and why.
 * The tests take their names from here and docs/hosted-login.md carries the table
 * conformanceTable() renders (a test keeps the two equal).
 *
 * Outcomes, as the suite reports them:
 * - `passes`: the module runs to the end with every check green.
 * - `passes with a warning`: it runs to the end and a check the suite only warns about does not
 *   hold, deliberately (the note says which); the test asserts exactly that.
 * - `skipped`: the module's own skip rule applies, from what discovery (or the server's answer) says.
 * - `not applicable`: the suite does not run the module in this configuration (a static client:
 *   identity has no dynamic client registration); the test still checks what the module would.
 */
export type Outcome = 'passes' | 'passes with a warning' | 'skipped' | 'not applicable';

export interface ConformanceModule {
  /** The module's testName in the suite. */
  id: string;
  outcome: Outcome;
  /** What identity does, in a line (the docs table's last column). */
  note: string;
}

export interface ConformancePlan {
  id: string;
  /** The certification profile the plan certifies. */
  profile: string;
  /** The variant the tests run it with. */
  variant: string;
  modules: readonly ConformanceModule[];
}

const pass = (id: string, note: string): ConformanceModule => ({ id, outcome: 'passes', note });

/** The Basic plan's modules (response_type code), in the suite's order; the Form Post plan runs the same with response_mode=form_post. */
const BASIC_MODULES: readonly ConformanceModule[] = [
  pass('oidcc-server', 'Code flow, client_secret_basic; ID token (RS256, kid) with only the claims asked for; UserInfo.'),
  pass('oidcc-response-type-missing', 'invalid_request sent back in the query (no response type, so no other mode), with state and iss.'),
  { id: 'oidcc-idtoken-signature', outcome: 'not applicable', note: 'Dynamic registration only; the test still checks RS256 and kid.' },
  { id: 'oidcc-idtoken-unsigned', outcome: 'not applicable', note: 'Dynamic registration only; unsigned ID tokens are never issued (discovery: RS256 only).' },
  pass('oidcc-userinfo-get', 'GET /userinfo with a bearer header.'),
  pass('oidcc-userinfo-post-header', 'POST /userinfo with a bearer header.'),
  pass('oidcc-userinfo-post-body', 'POST /userinfo with access_token in the form body.'),
  pass('oidcc-ensure-request-without-nonce-succeeds-for-code-flow', 'nonce is optional for the code flow.'),
  {
    id: 'oidcc-scope-profile',
    outcome: 'passes with a warning',
    note: 'profile releases name, nickname, updated_at at UserInfo; the suite warns that the other profile claims (given_name, picture, ...) are absent: an SMS user has none.',
  },
  { id: 'oidcc-scope-email', outcome: 'skipped', note: 'No email scope: users have a phone number only (scopes_supported omits email).' },
  { id: 'oidcc-scope-address', outcome: 'skipped', note: 'No address scope (scopes_supported omits address).' },
  pass('oidcc-scope-phone', 'phone releases phone_number, phone_number_verified at UserInfo.'),
  { id: 'oidcc-scope-all', outcome: 'skipped', note: 'Asks for email and address too, which scopes_supported omits.' },
  {
    id: 'oidcc-alternate-happy-flow',
    outcome: 'skipped',
    note: 'It extends oidcc-scope-email and skips with it; the test still runs its flow (scopes and parameters reversed) with phone.',
  },
  pass('oidcc-display-page', 'display is accepted (one page for every display).'),
  pass('oidcc-display-popup', 'display is accepted (one page for every display).'),
  pass('oidcc-prompt-login', 'prompt=login asks for a new SMS code; auth_time moves on.'),
  pass('oidcc-prompt-none-not-logged-in', 'login_required by the response mode, state kept.'),
  pass('oidcc-prompt-none-logged-in', 'Answered from the session, same sub and auth_time.'),
  pass('oidcc-max-age-1', 'A session older than max_age signs in again; auth_time is always in the ID token.'),
  pass('oidcc-max-age-10000', 'A younger session answers at once, same auth_time.'),
  pass('oidcc-ensure-request-with-unknown-parameter-succeeds', 'Unknown parameters are ignored.'),
  pass('oidcc-id-token-hint', 'id_token_hint of the signed-in user with prompt=none answers at once.'),
  pass('oidcc-login-hint', 'login_hint prefills the phone number.'),
  pass('oidcc-ui-locales', 'ui_locales is accepted; the page is in English.'),
  pass('oidcc-claims-locales', 'claims_locales is accepted; claims have no language.'),
  pass('oidcc-ensure-request-with-acr-values-succeeds', 'acr_values of acr_values_supported: the ID token carries that acr.'),
  pass('oidcc-codereuse', 'A code used twice: 400 invalid_grant.'),
  pass('oidcc-codereuse-30seconds', 'A code used again 30 s later: 400 invalid_grant, and its access token is revoked.'),
  pass('oidcc-ensure-registered-redirect-uri', 'An unregistered redirect_uri gets an error page, never a redirect.'),
  pass('oidcc-ensure-post-request-succeeds', 'POST /authorize.'),
  pass('oidcc-server-client-secret-post', 'Code flow with client_secret_post.'),
  {
    id: 'oidcc-request-uri-unsigned-supported-correctly-or-rejected-as-unsupported',
    outcome: 'not applicable',
    note: 'Dynamic registration only; request_uri is refused with request_uri_not_supported (discovery: request_uri_parameter_supported false).',
  },
  {
    id: 'oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported',
    outcome: 'skipped',
    note: 'Request objects are refused with request_not_supported (discovery: request_parameter_supported false).',
  },
  pass('oidcc-claims-essential', 'The claims parameter: an essential name at UserInfo is returned without the profile scope.'),
  pass('oidcc-ensure-request-object-with-redirect-uri', 'The unregistered redirect_uri outside the request object gets an error page.'),
  pass('oidcc-refresh-token', 'offline_access gives a refresh token; another client\'s refresh token: 400 invalid_grant.'),
  pass('oidcc-ensure-request-with-valid-pkce-succeeds', 'PKCE S256 (plain is refused).'),
];

const LOGOUT_MODULES: readonly ConformanceModule[] = [
  pass('oidcc-rp-initiated-logout-discovery-endpoint-verification', 'end_session_endpoint is advertised, over https.'),
  pass('oidcc-rp-initiated-logout', 'Back to post_logout_redirect_uri with state; prompt=none then answers login_required.'),
  pass('oidcc-rp-initiated-logout-bad-post-logout-redirect-uri', 'An unregistered post_logout_redirect_uri gets an error page.'),
  pass('oidcc-rp-initiated-logout-modified-id-token-hint', 'An id_token_hint changed to alg none gets an error page.'),
  pass('oidcc-rp-initiated-logout-no-id-token-hint', 'post_logout_redirect_uri without id_token_hint or client_id gets an error page.'),
  pass('oidcc-rp-initiated-logout-no-params', 'No parameters: signed out, the "Signed out" page.'),
  pass('oidcc-rp-initiated-logout-no-post-logout-redirect-uri', 'Signed out, the "Signed out" page.'),
  pass('oidcc-rp-initiated-logout-no-state', 'Back to post_logout_redirect_uri without state.'),
  pass('oidcc-rp-initiated-logout-only-state', 'Signed out, the "Signed out" page.'),
  pass('oidcc-rp-initiated-logout-query-added-to-post-logout-redirect-uri', 'post_logout_redirect_uri is compared exactly: an error page.'),
  pass('oidcc-rp-initiated-logout-bad-id-token-hint', 'An id_token_hint signed by someone else gets an error page.'),
];

export const BASIC_PLAN: ConformancePlan = {
  id: 'oidcc-basic-certification-test-plan',
  profile: 'Basic OP',
  variant: 'static client, client_secret_basic, response_type code, default response mode',
  modules: BASIC_MODULES,
};

export const FORM_POST_PLAN: ConformancePlan = {
  id: 'oidcc-formpost-basic-certification-test-plan',
  profile: 'Form Post OP',
  variant: 'as Basic, response_mode=form_post',
  modules: BASIC_MODULES,
};

export const CONFIG_PLAN: ConformancePlan = {
  id: 'oidcc-config-certification-test-plan',
  profile: 'Config OP',
  variant: 'discovery, static client',
  modules: [pass('oidcc-discovery-endpoint-verification', 'The discovery document as OpenID Connect Discovery and RFC 8414 require; endpoints https; JWKS valid.')],
};

export const LOGOUT_PLAN: ConformancePlan = {
  id: 'oidcc-rp-initiated-logout-certification-test-plan',
  profile: 'RP-Initiated OP',
  variant: 'discovery, static client, client_secret_basic, response_type code',
  modules: LOGOUT_MODULES,
};

export const PLANS: readonly ConformancePlan[] = [BASIC_PLAN, CONFIG_PLAN, FORM_POST_PLAN, LOGOUT_PLAN];

export function moduleOf(plan: ConformancePlan, id: string): ConformanceModule {
  const found = plan.modules.find((m) => m.id === id);
  if (!found) throw new Error(`${id} is not a module of ${plan.id}`);
  return found;
}

/** The Markdown table of docs/hosted-login.md: one row per plan and module. */
export function conformanceTable(): string {
  const rows = PLANS.flatMap((plan) => plan.modules.map((m) => `| ${plan.profile} | \`${m.id}\` | ${m.outcome} | ${m.note} |`));
  return ['| Profile | Module | Outcome | What identity does |', '|---|---|---|---|', ...rows].join('\n');
}
