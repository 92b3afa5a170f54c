// The hosted login's passkey routes in the OpenAPI document (issue 29). The management
// operations on a user's passkeys are declared in routes/management/authentication-methods.ts.

type Json = Record<string, unknown>;

/** The hosted login's passkey routes (HTML pages and the ceremonies' JSON options). */
export function passkeyHostedLoginPaths(): Json {
  const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
  const toRedirectUri = { description: 'To the redirect_uri by the response mode (as after the code step).', headers: { Location: { schema: { type: 'string' } } } };
  const responsePage = html('response_mode form_post or web_message: the response page (as after the code step).');
  const errors = {
    '400': html('Error page (expired transaction or offer), or the page again with the problem.'),
    '403': html('The transaction cookie or CSRF token does not match.'),
    '404': html('The connection has passkeys off.'),
    '500': html('Generic error page.'),
    '503': html('Database unreachable (with `Retry-After: 5`).'),
  };
  const fields = (extra: Record<string, string> = {}) => {
    const all = { transaction: 'The transaction id of the page.', csrf_token: 'The CSRF token of the page.', ...extra };
    return {
      required: true,
      content: {
        'application/x-www-form-urlencoded': {
          schema: {
            type: 'object',
            required: Object.keys(all),
            properties: Object.fromEntries(Object.entries(all).map(([name, description]) => [name, { type: 'string', description }])),
          },
        },
      },
    };
  };
  const options = (description: string) => ({ description, content: { 'application/json': { schema: { type: 'object' } } } });
  const script = (summary: string, operationId: string) => ({
    get: { tags: ['Hosted login'], operationId, summary, responses: { '200': { description: 'JavaScript.', content: { 'text/javascript': { schema: { type: 'string' } } } } } },
  });
  const op = (operationId: string, summary: string, extra: Json) => ({ tags: ['Hosted login'], operationId, summary, ...extra });
  return {
    '/authorize/webauthn.js': script('@simplewebauthn/browser, served from this origin', 'authorizeWebAuthnScript'),
    '/authorize/passkeys.js': script('The login pages\' passkey script (progressive enhancement)', 'authorizePasskeyScript'),
    '/authorize/passkey/options': {
      post: op('authorizePasskeyOptions', 'WebAuthn options to sign in with a passkey (a single-use challenge of this transaction, 5 minutes)', {
        requestBody: fields(),
        responses: { '200': options('PublicKeyCredentialRequestOptionsJSON: RP ID identity\'s host, no allow list (discoverable passkeys).'), ...errors },
      }),
    },
    '/authorize/passkey/login': {
      post: op('authorizePasskeyLogin', 'Sign in with a passkey: no SMS; starts the login session and answers the client', {
        requestBody: fields({ credential: 'The assertion as @simplewebauthn/browser returns it (JSON).' }),
        responses: { '200': responsePage, '302': toRedirectUri, ...errors },
      }),
    },
    '/authorize/passkey/offer': {
      get: op('authorizePasskeyOffer', 'The passkey offer after an SMS login', {
        parameters: [{ name: 'transaction', in: 'query', required: true, schema: { type: 'string' } }],
        responses: { '200': html('The offer page.'), ...errors },
      }),
    },
    '/authorize/passkey/registration-options': {
      post: op('authorizePasskeyRegistrationOptions', 'WebAuthn options to create the offered passkey (resident key, attestation none)', {
        requestBody: fields(),
        responses: { '200': options('PublicKeyCredentialCreationOptionsJSON; the user handle is random, never the phone number.'), ...errors },
      }),
    },
    '/authorize/passkey/register': {
      post: op('authorizePasskeyRegister', 'Store the offered passkey, then answer the client', {
        requestBody: fields({ credential: 'The registration as @simplewebauthn/browser returns it (JSON).' }),
        responses: { '200': responsePage, '302': toRedirectUri, ...errors },
      }),
    },
    '/authorize/passkey/skip': {
      post: op('authorizePasskeySkip', '"Not now" (choice=later) or "Don\'t ask on this device" (choice=never), then answer the client', {
        requestBody: fields({ choice: '`later` or `never`.' }),
        responses: { '200': responsePage, '302': toRedirectUri, ...errors },
      }),
    },
  };
}
