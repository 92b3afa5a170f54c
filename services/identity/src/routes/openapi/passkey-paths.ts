// The passkey parts of the OpenAPI document (issue 29), kept in their own file: the management
// operations of a user's authentication methods, and the hosted login's passkey routes.

type Json = Record<string, unknown>;

const AUTHENTICATION_METHOD = { $ref: '#/components/schemas/AuthenticationMethodRecord' };

/** Management operations, keyed `METHOD /path` as the router declares them. */
export const PASSKEY_MANAGEMENT_OPERATIONS = {
  'GET /users/:id/authentication-methods': {
    summary: "A user's passkeys, as Auth0 lists authentication methods (type `passkey`), oldest first",
    status: '200' as const,
    response: { type: 'array', items: AUTHENTICATION_METHOD },
    errors: ['404' as const],
  },
  'GET /users/:id/authentication-methods/:method_id': {
    summary: 'Get one passkey of a user',
    status: '200' as const,
    response: AUTHENTICATION_METHOD,
    errors: ['404' as const],
  },
  'DELETE /users/:id/authentication-methods/:method_id': {
    summary: 'Delete a passkey of a user: it stops signing in at once (SMS still works)',
    status: '204' as const,
    errors: ['404' as const],
  },
};

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
