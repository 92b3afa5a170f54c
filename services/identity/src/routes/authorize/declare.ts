import { DeliveryChannelSchema } from '@smsauth/contracts';
import { defineOperation, redirectResponse, textResponse, type Operation, type OperationResponse } from '@smsauth/service-kit';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { AUTHORIZE_PARAMETER_NAMES, CODE_CHALLENGE_METHODS, MAX_PARAMETER_LENGTH, RESPONSE_TYPES, S256_CHALLENGE } from '../../domain/authorize/request';
import { RESPONSE_MODES } from '../../domain/authorize/response';

// How the hosted login's operations are declared: HTML pages and form posts whose handlers
// answer themselves (a page, a redirect, an error page), validated by the domain (an unknown
// or expired transaction, a CSRF mismatch is a page, never JSON), so the kit publishes the
// query and form schemas and does not re-validate them.

type Json = Record<string, unknown>;
type Answers = Record<string, OperationResponse | Json>;

export const html = (description: string): OperationResponse => textResponse(description);

/** The redirect to the client's redirect_uri with the authorization response. */
export const TO_REDIRECT_URI = redirectResponse(
  'response_mode query (code flow default) or fragment (implicit default): to the redirect_uri with `code`/`state`, the tokens, or `error`/`error_description`/`state` (`unauthorized`/`user is blocked` for a blocked user, `login_required` for prompt=none without a session).',
);

/** The authorization response as a page (form_post, web_message). */
export const RESPONSE_PAGE = html(
  'response_mode form_post: a page that posts the response to the redirect_uri (its one script allowed by hash); web_message: a page that posts `{type: "authorization_response", response}` to the opener or parent at the redirect_uri\'s origin, a registered web origin (framable by that origin only).',
);

/** The error pages every page and post may answer. */
export const PAGE_ERRORS: Answers = {
  '400': html('Error page (bad request, unknown client or callback, unknown or expired transaction), or the form again with the problem.'),
  '403': html('Sign-up disabled, or the transaction cookie or CSRF token does not match.'),
  '429': html('Rate limit, resend cool-down or brute-force block.'),
  '500': html('Generic error page.'),
  '502': html('The SMS gateway failed.'),
  '503': html('Database unreachable (with `Retry-After: 5`).'),
};

const COMPLETED = 'Or, for a transaction that already signed its user in:';

/**
 * Every page and post of a transaction: besides its own answers, Back after the sign-in
 * completed (within the hour the transaction is kept) goes to the client's initiate_login_uri
 * (303) or shows "You are signed in" (200).
 */
export function transactionResponses(responses: Record<string, OperationResponse>): Answers {
  const ok = responses['200'];
  const seeOther = responses['303'];
  return {
    ...responses,
    '200': ok ? { ...ok, description: `${ok.description} ${COMPLETED} the "You are signed in" page linking to the application.` } : html(`${COMPLETED} the "You are signed in" page linking to the application.`),
    '303': seeOther
      ? { ...seeOther, description: `${seeOther.description} ${COMPLETED} to the client's initiate_login_uri.` }
      : redirectResponse(`${COMPLETED} to the client's initiate_login_uri.`),
    ...PAGE_ERRORS,
  };
}

const parameter = () => z.string().max(MAX_PARAMETER_LENGTH);

/**
 * `GET /authorize`'s query: the parameters it acts on (others are ignored), each at most
 * MAX_PARAMETER_LENGTH characters, given once; an empty value counts as absent. The rules
 * the domain refuses by (an error page before the redirect_uri is proven, an error sent to it after).
 */
export const AuthorizeQuerySchema = z.object({
  client_id: parameter().min(1).describe('A registered client (else an error page).'),
  redirect_uri: parameter()
    .min(1)
    .regex(/^[^#]*$/)
    .describe('Exactly one of the client\'s callbacks, no fragment; with response_mode=web_message, a URL of one of its web_origins (else an error page).'),
  response_type: z.enum([...RESPONSE_TYPES, 'id_token token']).describe('Required. The code flow needs the client\'s authorization_code grant, the others its implicit grant.'),
  response_mode: z.enum(RESPONSE_MODES).optional().describe('query cannot carry tokens (code only); by default query for code, fragment otherwise.'),
  state: parameter().optional(),
  nonce: parameter().optional().describe('Required when response_type includes id_token.'),
  scope: parameter().optional().describe('Space-separated; must include openid when response_type includes id_token (default `openid`).'),
  audience: parameter().optional().describe('An API (resource server identifier) the client may get user tokens for; default the client\'s default_audience.'),
  connection: parameter().optional().describe('An SMS connection enabled for the client; required when several are.'),
  prompt: parameter().optional().describe('Space-separated: `none` (alone: answer without a page) or `login`; others are ignored.'),
  max_age: z.string().regex(/^\d{1,10}$/).optional().describe('Seconds: a login session older than this signs in again.'),
  code_challenge: z.string().regex(S256_CHALLENGE).optional().describe('PKCE, the code flow: the base64url SHA-256 of the code_verifier. Required for public clients (token_endpoint_auth_method none).'),
  code_challenge_method: z.enum(CODE_CHALLENGE_METHODS).optional().describe('Required with code_challenge.'),
  login_hint: parameter().optional().describe('Prefills the number on the phone page.'),
  ui_locales: parameter().optional().describe('Space-separated BCP 47 tags, most preferred first: the pages speak the first one the tenant has enabled (`pt` finds `pt-BR`, `zh-Hant` finds `zh-TW`); none enabled: the browser\'s Accept-Language, then the tenant\'s default. The login keeps the language chosen.'),
  claims_locales: parameter().optional().describe('Accepted and ignored: no claim has a language.'),
  display: parameter().optional().describe('Accepted and ignored: one page fits page, popup, touch and wap.'),
  id_token_hint: parameter().optional().describe('An ID token issued here: a login session of another user is not used (prompt=none then answers login_required).'),
  claims: parameter().optional().describe('OIDC Core §5.5, a JSON object: user claims named under `userinfo` or `id_token` (name, nickname, updated_at, phone_number, phone_number_verified) are released there besides those of the scopes (at UserInfo with an opaque access token, i.e. without an audience); `id_token.acr` asks for the acr. Not JSON: invalid_request.'),
  acr_values: parameter().optional().describe('Space-separated; when it lists urn:smsauth:acr:single-factor (discovery acr_values_supported) the ID token carries that acr.'),
  request: z.string().optional().describe('Not supported (discovery: request_parameter_supported false): answered with error request_not_supported.'),
  request_uri: z.string().optional().describe('Not supported (discovery: request_uri_parameter_supported false): answered with error request_uri_not_supported.'),
} satisfies Record<(typeof AUTHORIZE_PARAMETER_NAMES)[number], z.ZodType>);

/** `/authorize` with a login ticket of POST /co/authenticate (embedded login). */
export const AuthorizeWithTicketQuerySchema = AuthorizeQuerySchema.extend({
  login_ticket: z
    .string()
    .max(MAX_PARAMETER_LENGTH)
    .optional()
    .describe(
      'A login ticket of POST /co/authenticate: signs in without a page when it is unused, at most 60 seconds old, of this client, for a redirect_uri of the origin that got it, of the connection, and the browser proves its verifier (the cookie /co/authenticate set, or /co/verify); otherwise `access_denied` to the redirect_uri.',
    ),
});

/** `/co/verify`: the authorize request with its login ticket. */
export const CoVerifyQuerySchema = AuthorizeWithTicketQuerySchema.extend({ login_ticket: z.string().max(MAX_PARAMETER_LENGTH) });

export const CoVerifyFormSchema = CoVerifyQuerySchema.extend({
  co_verifier: z.string().describe('The verifier the client\'s cross_origin_loc page answered (empty: none).'),
  co_csrf: z.string().describe('The CSRF token of the page; must match its cookie.'),
});

/** A GET page of a transaction. */
export const TransactionQuerySchema = z.object({ transaction: z.string() });

/** What every form post of a transaction carries. */
export const TransactionFormSchema = z.object({
  transaction: z.string().describe('The transaction id of the page.'),
  csrf_token: z.string().describe('The CSRF token of the page.'),
});

export const PhoneFormSchema = TransactionFormSchema.extend({
  country: z.string().describe('ISO 3166-1 alpha-2 code the number is read for (national format); empty: the number starts with + and its country code.'),
  phone_number: z.string().describe('The number as typed; it must be a valid number (libphonenumber) and is kept in E.164.'),
});

export const CodeFormSchema = TransactionFormSchema.extend({ code: z.string().describe('The one-time code.') });

export const ResendFormSchema = TransactionFormSchema.extend({
  channel: DeliveryChannelSchema.optional().describe(
    "The channel to send by, one the connection's `options.channels` allows for the number (else the page says it is not available); absent: the connection's order.",
  ),
});

const FORM = ['application/x-www-form-urlencoded'] as const;

export interface HostedLoginDeclaration {
  method: 'get' | 'post';
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  query?: z.ZodType;
  /** The form a post sends (application/x-www-form-urlencoded). */
  form?: z.ZodType;
  responses: Answers;
  handle(req: Request, res: Response): Promise<void> | void;
}

/** A hosted-login operation: tag Hosted login, a form body, the handler answering itself. */
export function hostedLoginOperation(declaration: HostedLoginDeclaration): Operation {
  const { form, handle, ...rest } = declaration;
  return defineOperation({
    ...rest,
    tags: ['Hosted login'],
    ...(form ? { body: { schema: form, mediaTypes: FORM } } : {}),
    validation: 'handler',
    handle: ({ req, res }) => handle(req, res),
  });
}
