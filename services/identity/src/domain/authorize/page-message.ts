/**
 * What a hosted page says about a refusal, as a key of the pages' translation files
 * (`locales/login/*.json`) and its arguments: the page renders it in its own language, so the
 * text is chosen by the refusal's code and never translated from an English description.
 */
export interface PageMessage {
  key: string;
  args?: Readonly<Record<string, string | number>>;
}

/** A page error's title and description (see AuthorizePageError). */
export interface PageErrorText {
  title: PageMessage;
  description: PageMessage;
}

const page = (key: string, args?: PageMessage['args']): PageMessage => ({ key: `smsauth.error-page.${key}`, ...(args ? { args } : {}) });
const invalidRequest = page('invalidRequestTitle');

/** The error pages of the hosted login, by code. */
export const PAGE_ERRORS = {
  missingParameter: (name: string): PageErrorText => ({ title: invalidRequest, description: page('missingParameter', { name }) }),
  repeatedParameter: (name: string): PageErrorText => ({ title: invalidRequest, description: page('repeatedParameter', { name }) }),
  invalidParameter: (name: string): PageErrorText => ({ title: invalidRequest, description: page('invalidParameter', { name }) }),
  redirectUriFragment: (): PageErrorText => ({ title: invalidRequest, description: page('redirectUriFragment') }),
  unknownClient: (): PageErrorText => ({ title: page('unknownClientTitle'), description: page('unknownClient') }),
  originNotAllowed: (appName: string): PageErrorText => ({ title: page('originNotAllowedTitle'), description: page('originNotAllowed', { appName }) }),
  callbackMismatch: (appName: string): PageErrorText => ({ title: page('callbackMismatchTitle'), description: page('callbackMismatch', { appName }) }),
  expired: (): PageErrorText => ({ title: page('expiredTitle'), description: page('expired') }),
  forged: (): PageErrorText => ({ title: page('forgedTitle'), description: page('forged') }),
  passkeysUnavailable: (): PageErrorText => ({ title: page('passkeysUnavailableTitle'), description: page('passkeysUnavailable') }),
  notVerified: (): PageErrorText => ({ title: page('notVerifiedTitle'), description: page('notVerified') }),
  unavailable: (): PageErrorText => ({ title: page('unavailableTitle'), description: page('unavailable') }),
  serverError: (): PageErrorText => ({ title: page('serverErrorTitle'), description: page('serverError') }),
  logoutRefused: (key: string, args?: PageMessage['args']): PageErrorText => ({ title: invalidRequest, description: page(key, args) }),
} as const;
