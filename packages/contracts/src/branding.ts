import { z } from 'zod';
import { LOGIN_LANGUAGES } from './login-languages';

// The tenant's brand and texts, as Auth0's Management API names them (`/api/v2/branding`,
// `/api/v2/prompts`, `/api/v2/prompts/{prompt}/custom-text/{language}`), so that a tenant moved
// in from Auth0 keeps its files (auth0-deploy-cli's branding/, prompts/) and its API calls.
// docs/branding.md says what each field does here.

/** A DNS host (letters, digits, hyphens; the last label not numeric) or a dotted IPv4 address. */
const HOST =
  '(?:(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)*[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))';
const PORT = '(?::(?:[1-9]\\d{0,3}|[1-5]\\d{4}|6[0-4]\\d{3}|65[0-4]\\d{2}|655[0-2]\\d|6553[0-5]))?';
/** An https: URL: host, optional port, then path, query or fragment in printable ASCII. Every string it matches parses as a URL. */
export const HTTPS_URL_PATTERN = `^https://${HOST}${PORT}(?:[/?#][!-~]*)?$`;

/** A URL the hosted pages load (image, icon, font): https only, because the pages' CSP allows nothing else and a page served over https must not mix in http. */
export const HttpsUrlSchema = z
  .string()
  .max(2048)
  .regex(new RegExp(HTTPS_URL_PATTERN), { message: 'must be an https: URL (https://host/path): the hosted pages load images and fonts over https only' });

/** `#rgb` or `#rrggbb`, as Auth0 accepts them; stored and shown as lower-case `#rrggbb`. */
export const HEX_COLOUR_PATTERN = '^#(?:[0-9A-Fa-f]{3}){1,2}$';
const ColourSchema = z.string({ error: 'must be a #rrggbb or #rgb colour' }).regex(new RegExp(HEX_COLOUR_PATTERN), { message: 'must be a #rrggbb or #rgb colour' });

/** `#abc` → `#aabbcc`, `#AABBCC` → `#aabbcc`. */
export function normaliseColour(colour: string): string {
  const hex = colour.slice(1).toLowerCase();
  return `#${hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex}`;
}

/** Auth0's `GET /api/v2/branding`: only what the tenant set (a tenant that set nothing gets `{}`). */
export const BrandingSchema = z.strictObject({
  colors: z
    .strictObject({
      primary: z.string().optional().describe('Buttons and links, `#rrggbb`.'),
      page_background: z.string().optional().describe('Behind the card, `#rrggbb`.'),
    })
    .optional(),
  logo_url: z.string().optional(),
  favicon_url: z.string().optional(),
  font: z.strictObject({ url: z.string().optional() }).optional(),
});
export type Branding = z.infer<typeof BrandingSchema>;

/** Auth0's `PATCH /api/v2/branding`: the fields given replace the stored ones; `null` removes one. */
export const BrandingUpdateSchema = z.strictObject({
  colors: z
    .strictObject({
      primary: ColourSchema.nullable()
        .optional()
        .describe('The hosted pages\' buttons and links: `#rrggbb` or `#rgb` (shown as lower-case `#rrggbb`); null removes it.'),
      page_background: ColourSchema.nullable()
        .optional()
        .describe(
          'Behind the card: `#rrggbb` or `#rgb` (shown as lower-case `#rrggbb`); null removes it. Auth0\'s gradient object ({type: linear-gradient, start, end, angle_deg}) is refused: the pages paint a solid background.',
        ),
    })
    .nullable()
    .optional()
    .describe('null removes both colours.'),
  logo_url: HttpsUrlSchema.nullable().optional().describe('Shown above the page title; an https: URL (anything else is refused), null removes it.'),
  favicon_url: HttpsUrlSchema.nullable().optional().describe('The pages\' icon; an https: URL (anything else is refused), null removes it.'),
  font: z
    .strictObject({
      url: HttpsUrlSchema.nullable().optional().describe('A font file (woff2, woff, ttf: not a stylesheet, as at Auth0) used before the system fonts; an https: URL, null removes it.'),
    })
    .nullable()
    .optional(),
});
export type BrandingUpdate = z.infer<typeof BrandingUpdateSchema>;

const PROMPT_SETTING_INERT = 'Stored and shown, nothing acts on it:';

/** Auth0's `GET /api/v2/prompts`. */
export const PromptSettingsSchema = z.strictObject({
  universal_login_experience: z.enum(['new', 'classic']),
  identifier_first: z.boolean(),
  webauthn_platform_first_factor: z.boolean(),
});
export type PromptSettings = z.infer<typeof PromptSettingsSchema>;

/** What a tenant that set nothing shows (Auth0's values for a new tenant). */
export const DEFAULT_PROMPT_SETTINGS: PromptSettings = { universal_login_experience: 'new', identifier_first: false, webauthn_platform_first_factor: false };

/** Auth0's `PATCH /api/v2/prompts`: the fields given replace the stored ones. */
export const PromptSettingsUpdateSchema = z.strictObject({
  universal_login_experience: z
    .enum(['new', 'classic'])
    .optional()
    .describe(`${PROMPT_SETTING_INERT} identity has one hosted login, which asks for the phone number first whichever is set.`),
  identifier_first: z
    .boolean()
    .nullable()
    .optional()
    .describe(`${PROMPT_SETTING_INERT} the hosted login always asks for the phone number first (null: false).`),
  webauthn_platform_first_factor: z
    .boolean()
    .nullable()
    .optional()
    .describe(`${PROMPT_SETTING_INERT} passkeys are offered and used as the connection's passkey settings say (null: false).`),
});
export type PromptSettingsUpdate = z.infer<typeof PromptSettingsUpdateSchema>;

/**
 * The screens of each prompt whose texts a tenant may set: Auth0's prompt and screen names where
 * our pages have the screen, and `smsauth` for the screens Auth0 has no name for. The hosted
 * pages key each text `prompt.screen.key`.
 */
export const CUSTOM_TEXT_SCREENS = {
  'login-id': ['login-id'],
  'login-passwordless': ['login-passwordless-sms-otp'],
  passkeys: ['passkey-enrollment-local'],
  // Auth0's logout prompt has three screens; the pages show logout-complete. The other two are
  // accepted so that texts exported from an Auth0 tenant import unchanged (stored, not shown).
  logout: ['logout', 'logout-aborted', 'logout-complete'],
  common: ['common'],
  smsauth: ['common', 'phone', 'code', 'errors', 'passkey-offer', 'signed-in', 'logout', 'co-verify', 'error-page'],
} as const satisfies Record<string, readonly string[]>;
export type CustomTextPrompt = keyof typeof CUSTOM_TEXT_SCREENS;
export const CUSTOM_TEXT_PROMPTS = Object.keys(CUSTOM_TEXT_SCREENS) as CustomTextPrompt[];

/**
 * Auth0's prompt names (as auth0-deploy-cli reads them), which GET answers with `{}` when the
 * pages have no such prompt: a tool exporting every prompt of an Auth0 tenant gets an empty text.
 */
export const AUTH0_PROMPTS = [
  'login', 'login-id', 'login-password', 'login-passwordless', 'login-email-verification', 'signup', 'signup-id', 'signup-password',
  'phone-identifier-enrollment', 'phone-identifier-challenge', 'email-identifier-challenge', 'reset-password', 'custom-form', 'consent',
  'customized-consent', 'logout', 'mfa-push', 'mfa-otp', 'mfa-voice', 'mfa-phone', 'mfa-webauthn', 'mfa-sms', 'mfa-email', 'mfa-recovery-code',
  'mfa', 'status', 'device-flow', 'email-verification', 'email-otp-challenge', 'organizations', 'invitation', 'common', 'captcha', 'passkeys',
  'brute-force-protection',
] as const;
export const READABLE_PROMPTS = [...AUTH0_PROMPTS, 'smsauth'] as const;

/** The longest custom text (one key's value). */
export const CUSTOM_TEXT_MAX_LENGTH = 2000;
/** A text key: Auth0's are camelCase (`buttonText`) or kebab-case (`invalid-code`). */
export const CUSTOM_TEXT_KEY_PATTERN = '^[A-Za-z][A-Za-z0-9_-]{0,99}$';

const ScreenTextsSchema = z
  .record(
    z.string().regex(new RegExp(CUSTOM_TEXT_KEY_PATTERN), { message: 'a text key is a letter then up to 99 letters, digits, - or _' }),
    z.string().max(CUSTOM_TEXT_MAX_LENGTH, { message: `a text is at most ${CUSTOM_TEXT_MAX_LENGTH} characters` }),
  )
  .describe(`Texts by key (Auth0's keys, such as title, description, buttonText); each at most ${CUSTOM_TEXT_MAX_LENGTH} characters.`);

/** One screen list → the body schema naming exactly those screens. */
function customTextBodyOf(screens: readonly string[]) {
  return z.strictObject(Object.fromEntries(screens.map((screen) => [screen, ScreenTextsSchema.optional()])));
}

/**
 * `PUT /api/v2/prompts/{prompt}/custom-text/{language}`'s body: `{screen: {key: text}}`, any
 * screen of any prompt here (the operation refuses a screen of another prompt than the path's).
 */
export const CustomTextSchema = customTextBodyOf([...new Set(Object.values(CUSTOM_TEXT_SCREENS).flat())]).describe(
  `Screens of the prompt, each with its texts. The screens by prompt: ${Object.entries(CUSTOM_TEXT_SCREENS)
    .map(([prompt, screens]) => `${prompt}: ${screens.join(', ')}`)
    .join('; ')}. A screen of another prompt than the path's is refused. {} removes the prompt's texts in this language.`,
);
export type CustomText = Partial<Record<string, Record<string, string>>>;

export const CustomTextPathSchema = z.object({
  prompt: z.enum(CUSTOM_TEXT_PROMPTS, { message: `identity's pages have custom text for these prompts only: ${CUSTOM_TEXT_PROMPTS.join(', ')}` }),
  language: z.enum(LOGIN_LANGUAGES, { message: `the hosted pages speak these languages only: ${LOGIN_LANGUAGES.join(', ')}` }),
});
export const CustomTextReadPathSchema = z.object({
  prompt: z.enum(READABLE_PROMPTS, { message: `not a prompt: one of Auth0's prompt names or smsauth` }),
  language: z.enum(LOGIN_LANGUAGES, { message: `the hosted pages speak these languages only: ${LOGIN_LANGUAGES.join(', ')}` }),
});

/** `{}`: the answer for a prompt with no text and for Auth0's prompts identity's pages do not have. */
export const PromptPartialsSchema = z.strictObject({}).describe('Always {}: identity\'s pages take no partials (Auth0 keeps them for tenants with a custom domain).');
export const PromptPartialsPathSchema = z.object({ prompt: z.enum(READABLE_PROMPTS, { message: 'not a prompt: one of Auth0\'s prompt names or smsauth' }) });

/**
 * The states of the hosted login pages a preview shows (`POST /api/v2/branding/preview`): each
 * is one page of identity's login in one situation, rendered with sample data.
 */
export const LOGIN_PREVIEW_SCREENS = [
  'phone',
  'phone-error',
  'code',
  'code-error',
  'code-resend-wait',
  'passkey-offer',
  'passkey-error',
  'signed-in',
  'signed-out',
  'error',
  'front-channel-logout',
  'co-verify',
] as const;
export type LoginPreviewScreen = (typeof LOGIN_PREVIEW_SCREENS)[number];

/** `POST /api/v2/branding/preview`: a page of the hosted login as a draft brand and draft texts would show it (nothing is saved). */
export const BrandingPreviewSchema = z.strictObject({
  screen: z
    .enum(LOGIN_PREVIEW_SCREENS, { message: `the hosted login's page states: ${LOGIN_PREVIEW_SCREENS.join(', ')}` })
    .describe(
      'The page and its state: the phone page (empty, or refusing a number), the code page (waiting for the code, refusing one, or just after a resend while the resend button waits), the passkey offer after an SMS login, the phone page refusing a passkey, the page of a completed sign-in, the signed-out page, an error page, the front-channel logout page, the cross-origin verification page of an embedded login (/co/verify: no brand, shown for a moment).',
    ),
  language: z.enum(LOGIN_LANGUAGES, { message: `the hosted pages speak these languages only: ${LOGIN_LANGUAGES.join(', ')}` }).describe('The page\'s language (LOGIN_LANGUAGES; enabled or not).'),
  branding: BrandingUpdateSchema.optional().describe('A draft of the brand, as PATCH /api/v2/branding takes it: merged over the saved brand for this page, not saved.'),
  custom_text: z
    // Each prompt with only its own screens, so the document states which screens a prompt has.
    .strictObject(Object.fromEntries(CUSTOM_TEXT_PROMPTS.map((prompt) => [prompt, customTextBodyOf(CUSTOM_TEXT_SCREENS[prompt]).optional()])))
    .optional()
    .describe('Draft texts of this language by prompt, each as PUT /api/v2/prompts/{prompt}/custom-text/{language} takes them: a prompt given replaces its saved texts for this page, not saved.'),
  client_id: z.string().min(1).max(255).optional().describe('The application whose name the page shows (unknown: 404); absent: a sample name.'),
});
export type BrandingPreview = z.infer<typeof BrandingPreviewSchema>;
