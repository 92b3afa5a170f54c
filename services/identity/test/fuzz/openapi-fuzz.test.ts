import { fuzzOpenApi, fuzzReport, fuzzSettings, propertyTimeout, type DocumentedRefusal } from '@smsauth/test-support';
import { LOGIN_LANGUAGES } from '@smsauth/contracts';
import { Translator, type MessageKey } from '../../src/routes/authorize/i18n/messages';
import { FlowHarness, type LoginSetup } from '../passwordless/flow-harness';

// Requests generated from identity's own published document (GET /openapi.json), answers
// checked against it: see test-support/openapi-fuzz. A fresh seed each run, printed;
// FUZZ_SEED=<seed> replays one, FUZZ_RUNS=<n> makes it longer (`pnpm test:soak` runs it often).

/** Requests per run: under a minute on a loaded 2-core machine. */
const RUNS = 400;

/**
 * Operations the fuzzer leaves out, each with why: they change the whole tenant, so a random
 * call would make every later answer a test of that change instead of the document.
 */
const SKIP: Record<string, string> = {
  'POST /api/v2/keys/signing/rotate': 'rotating the signing key invalidates nothing but churns keys on every hit; covered by signing-keys tests',
  'PUT /api/v2/keys/signing/{kid}/revoke': 'revoking the key that signed the admin token would turn every later call into a 401',
  'DELETE /api/v2/clients/{id}': 'deleting the admin or the login client would end the run early',
  'DELETE /api/v2/connections/{id}': 'deleting the login connection would end the run early',
  'DELETE /api/v2/resource-servers/{id}': 'deleting the fuzz API would end the run early',
  'POST /api/v2/jobs/users-imports': 'a multipart/form-data upload, which the fuzzer does not generate; test/jobs/user-imports.test.ts covers its refusals',
};

/**
 * The hosted pages' texts of these keys as a page shows them, in every bundled language (a
 * generated PATCH /tenants/settings may have made any of them the tenant's default), an argument
 * standing for any text.
 */
function pageTextInEveryLanguage(...keys: string[]): RegExp {
  const ARGUMENT = 'ARGUMENT\u0001';
  const args = { clientId: ARGUMENT, returnTo: ARGUMENT, appName: ARGUMENT, name: ARGUMENT };
  const texts = LOGIN_LANGUAGES.flatMap((language) => keys.map((key) => new Translator(language).html(key as MessageKey, args)));
  const patterns = [...new Set(texts)].map((text) => text.split(ARGUMENT).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^<]*'));
  return new RegExp(patterns.join('|'));
}

/**
 * 400s to requests the document's schemas allow, each stated in the document's words because
 * JSON Schema cannot say it. Anything else refused is a rule the document does not state.
 */
const DOCUMENTED_REFUSALS: DocumentedRefusal[] = [
  {
    operation: /^(GET|POST) \/authorize\//,
    answer: pageTextInEveryLanguage('smsauth.error-page.expiredTitle', 'smsauth.error-page.forgedTitle'),
    reason: 'state: the pages and posts of a transaction need one opened by GET /authorize in this browser (its cookie and CSRF token)',
  },
  {
    operation: /^(GET|POST) \/(authorize|co\/verify)$/,
    answer: pageTextInEveryLanguage('smsauth.error-page.unknownClientTitle', 'smsauth.error-page.callbackMismatchTitle', 'smsauth.error-page.originNotAllowedTitle'),
    reason: 'state: the client must exist and the redirect_uri be one of its callbacks (or web origins), as the parameters\' descriptions say',
  },
  {
    operation: 'POST /co/authenticate',
    answer: /username (is not a phone number|is too short|is too long|is not a valid|has an invalid country code|has an unknown country code)/,
    reason: "a number's validity in its country's numbering plan (libphonenumber), stated in the operation's 400 description",
  },
  {
    operation: /^GET \/(v2|oidc)\/logout$/,
    answer: pageTextInEveryLanguage(
      'smsauth.error-page.logoutUnknownClient',
      'smsauth.error-page.logoutReturnToNotAllowed',
      'smsauth.error-page.logoutPostLogoutUriNotAllowed',
      'smsauth.error-page.logoutHintNotIssuedHere',
      'smsauth.error-page.logoutHintMismatch',
      'smsauth.error-page.logoutClientNotNamed',
    ),
    reason: "state: the client must exist, returnTo / post_logout_redirect_uri be one of its allowed_logout_urls and id_token_hint a token issued here, as the parameters' descriptions say",
  },
  {
    operation: /^(POST|PATCH) \/api\/v2\/(users|connections)/,
    answer: /(phone_number|sms_safe_list\.\d+|sms_test_numbers\.\d+(\.phone_number)?|from): (\S+ )?(is not a phone number|is too short|is too long|is not a valid|is not a number|has an invalid country code|has an unknown country code)/,
    reason: "a number's (or prefix's) validity in its country's numbering plan (libphonenumber), stated in the field's description",
  },
  {
    operation: /^(POST|PATCH) \/api\/v2\/connections/,
    answer: /(is not a known ISO 3166-1 alpha-2 country code|is not a country with phone numbers)/,
    reason: 'the countries libphonenumber knows, stated in the field descriptions',
  },
  { operation: /\/credentials$/, answer: /pem: is not a PEM public key/, reason: 'only parsing the key can tell; stated in the field description' },
  { operation: /^(POST|PATCH) \/api\/v2\/clients/, answer: /(grant_types|token_endpoint_auth_method|app_type|client_authentication_methods)[.\w]*: .*(client|secret)/, reason: "rules across fields: which grants and authentication methods each app_type may have (the fields' descriptions say which)" },
  {
    operation: /^(POST|PATCH) \/api\/v2\/clients/,
    answer: /(oidc_logout|oidc_backchannel_logout)[.\w]*: must be an https: URL|oidc_backchannel_logout: is the older name of oidc_logout|cross_origin_auth: is the older name of cross_origin_authentication/,
    reason: "a URL's syntax (only parsing can tell), and a field with its older name disagreeing: stated in the fields' descriptions",
  },
  { operation: 'POST /api/v2/clients/{id}/rotate-secret', answer: /has no secret/, reason: "state: the client's app_type" },
  { operation: /resource-servers/, answer: /duplicate scope/, reason: 'scopes unique by value: JSON Schema uniqueItems compares whole objects' },
  { operation: /logs$/, answer: /"q: /, reason: 'the Lucene query syntax, stated in the parameter description' },
  { operation: /logs$/, answer: /page: search reaches the first \d+ logs/, reason: 'a rule across parameters (page × per_page within the search window), stated in the description' },
  {
    operation: /^GET \/api\/v2\/(logs|users\/\{id\}\/logs|clients|connections|connections\/\{id\}\/clients|resource-servers|client-grants|users)$/,
    answer: /(from|take): (is not a checkpoint|no log with this id|cannot be combined)/,
    reason: 'state (a checkpoint this API issued) or a rule across parameters (from/take vs page/per_page)',
  },
  {
    operation: /^(POST|PATCH) \/api\/v2\/connections/,
    answer: /options\.name: (cannot be changed|required)|name: must equal options\.name|options\.strategy: required|enabled_clients\.\d+: no client with id/,
    reason: 'state (the stored name, clients that exist) or rules across fields (name and strategy here or at the top level)',
  },
  {
    operation: 'PATCH /api/v2/connections/{id}',
    answer: /options\.gateway_authentication\.\w+: /,
    reason: 'state: a partial gateway_authentication is merged over the stored one, and the result must be whole (the PATCH description says so)',
  },
  {
    operation: /connections/,
    answer: /options\.template: (must (contain the @@password@@ macro|output the code)|line \d+, column \d+)/,
    reason: "a rule across fields (the template's macro depends on its syntax) and Liquid's grammar (only parsing can tell)",
  },
  {
    operation: /^GET \/api\/v2\/stats\//,
    answer: /is not a calendar date|(from|to): .*(after|before|at most|days|earlier|later)/,
    reason: 'the calendar (the pattern cannot refuse February 30) and rules across from/to (order, at most 31 days by hour or 366 by day), stated in the description',
  },
  {
    operation: 'PATCH /api/v2/stats/sms-prices',
    answer: /prices\.\d+(\.country)?: .*(is not a country with phone numbers|is named twice)/,
    reason: 'the countries libphonenumber knows, and each country and channel named once (uniqueItems compares whole objects): stated in the field descriptions',
  },
  {
    operation: 'PATCH /api/v2/connections/{id}/clients',
    answer: /\d+\.client_id: no client with id/,
    reason: 'state: the clients named must exist, as the field description says',
  },
  {
    operation: 'PATCH /api/v2/roles/{id}',
    answer: /built_in: is read-only/,
    reason: "state: built_in is accepted only as the role's current value, as the field description says",
  },
  {
    operation: 'PATCH /api/v2/clients/{id}',
    answer: /built_in: is read-only/,
    reason: "state: built_in is accepted only as the client's current value, as the field description says",
  },
  {
    operation: 'POST /api/v2/jobs/users-exports',
    answer: /connection_id: no connection with id/,
    reason: 'state: the connection must exist, as the field description says',
  },
  {
    operation: /^(POST|PATCH) \/api\/v2\/resource-servers/,
    answer: /token_dialect: access_token_authz needs enforce_policies/,
    reason: 'a rule across fields, stated in the field description',
  },
  {
    operation: 'PUT /api/v2/prompts/{prompt}/custom-text/{language}',
    answer: /is not a screen of the [\w-]+ prompt/,
    reason: "a rule across the path and the body (each prompt's screens), stated in the body's description",
  },
  {
    operation: 'PATCH /api/v2/tenants/settings',
    answer: /(session_lifetime|idle_session_lifetime)(_in_minutes)?: must be [\d.]+ \((hours|minutes)\): the service's|_in_minutes: not with /,
    reason: "state (the configured session lifetimes, which GET shows) and a field with its minutes form given together, stated in the field descriptions",
  },
];

describe('identity against its own OpenAPI document (fuzz)', () => {
  let harness: FlowHarness;
  let setup: LoginSetup;
  let document: Record<string, unknown>;

  beforeAll(async () => {
    // Callers are told apart by X-Forwarded-For, so per-IP limits do not turn every answer into a 429.
    harness = await FlowHarness.start({ TRUST_PROXY: 'true' });
    setup = await harness.loginSetup();
    document = (await harness.http().get('/openapi.json')).body;
  }, 60_000);

  afterAll(() => harness?.close());

  it('answers every generated request with a documented status, content type and body, never a 5xx', async () => {
    const { seed, runs } = fuzzSettings(RUNS);
    console.log(`identity fuzz: seed ${seed}, ${runs} requests (replay: FUZZ_SEED=${seed})`);
    const { findings, statuses } = await fuzzOpenApi({
      baseUrl: harness.url,
      document,
      seed,
      runs,
      skip: SKIP,
      documentedRefusals: DOCUMENTED_REFUSALS,
      credentials: { managementApi: { authorization: `Bearer ${harness.admin}` } },
      knownValues: {
        id: [setup.clientId, setup.connectionId],
        client_id: [setup.clientId],
        connection: [setup.connection],
      },
      headers: (run) => ({ 'x-forwarded-for': `198.19.${Math.floor(run / 250)}.${(run % 250) + 1}` }),
    });
    console.log(`identity fuzz: answers by status ${JSON.stringify(statuses)}`);
    if (findings.length) throw new Error(fuzzReport(findings, seed));
    // Most requests got past authentication and validation to an answer of the operation itself.
    expect((statuses['200'] ?? 0) + (statuses['201'] ?? 0) + (statuses['204'] ?? 0)).toBeGreaterThan(runs / 10);
  }, propertyTimeout(120_000));
});
