import { env, type Clock } from '@smsauth/service-kit';
import type { AxiosInstance, AxiosRequestConfig } from 'axios';
import { describeTransportFailure, scrubSecrets, timeoutMs } from './provider';
import { checkReceiptToken } from '../domain/receipt-url-token';
import { ProviderError, type ReceiptReading, type ReceiptRequest } from '../domain/sms-provider';

// What the providers calling an HTTP API (twilio, vonage, telnyx, plivo, sinch, infobip, bird)
// do alike, so that each provider file keeps only what is its own: its request, its answer, its
// error table and its receipt's signature.

/** `<PROVIDER>_API_BASE_URL`: the API's base URL, which the tests point at a local imitation. */
export const apiBaseUrl = (fallback: string, description: string) => env.url().default(fallback).meta({ description });

/** `<PROVIDER>_TIMEOUT_MS`: how long the provider has to answer, 10 s unless set. */
export const answerTimeout = (label: string) =>
  timeoutMs(10_000).meta({ description: `Time ${label} has to answer (100..120000); keep it under the identity service's 30 s delivery timeout.` });

/** An HTTP answer of a provider's API, whatever its status. */
export interface ProviderAnswer {
  status: number;
  data: unknown;
}

export interface RestProviderOptions {
  /** The instance name: the ProviderError's provider. */
  name: string;
  /** The provider as the error descriptions name it (`Plivo`, `Vonage Messages`). */
  label: string;
  http: AxiosInstance;
  timeout: number;
  /** Credentials removed from every description a provider's text could carry them in. */
  secrets: ReadonlyArray<string | undefined>;
}

export interface RestProvider {
  /** A ProviderError of this instance, every credential scrubbed from its description. */
  fail(description: string, details?: ProviderError['details']): ProviderError;
  /**
   * POSTs `body` and returns the answer whatever its status (each provider reads its own error
   * body), following no redirect (a misconfigured endpoint, not an answer); no answer at all
   * becomes `<label> request failed: …`, which fails over.
   */
  post(url: string, body: unknown, options: Pick<AxiosRequestConfig, 'headers' | 'auth'>): Promise<ProviderAnswer>;
}

export function restProvider(options: RestProviderOptions): RestProvider {
  const fail = (description: string, details: ProviderError['details'] = {}) => new ProviderError(options.name, scrubSecrets(description, options.secrets), details);
  return {
    fail,
    async post(url, body, request) {
      try {
        const response = await options.http.post<unknown>(url, body, { ...request, timeout: options.timeout, maxRedirects: 0, validateStatus: () => true });
        return { status: response.status, data: response.data };
      } catch (err) {
        throw fail(`${options.label} request failed: ${describeTransportFailure(err, options.timeout)}`);
      }
    },
  };
}

/** A 2xx answer. */
export const isSuccess = (status: number) => status >= 200 && status < 300;

/** The answer's body as an object to read fields from ({} when it is not one). */
export const bodyObject = <Body extends object>(data: unknown): Partial<Body> => (typeof data === 'object' && data !== null ? data : {}) as Partial<Body>;

/** A string field, or undefined. */
export const stringOrUndefined = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** `details.transient` only when the provider's own table decided it; otherwise the HTTP status decides (isProviderFailure). */
export const decidedTransient = (transient: boolean | undefined): { transient?: boolean } => (transient !== undefined ? { transient } : {});

/** The clock's now in whole seconds, as receipts' timestamps are. */
export const epochSeconds = (clock: Clock) => Math.floor(clock.now().getTime() / 1000);

/** One request header of a receipt (undefined when absent or repeated). */
export function receiptHeader(request: ReceiptRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * For providers that do not sign their receipts (or not always): the receipt URL's token, keyed
 * with the provider's credential, refuses a receipt without it (unsigned) or with a wrong one
 * (forged); undefined when it is valid.
 */
export function receiptTokenRefusal(request: ReceiptRequest, key: string, provider: string): ReceiptReading | undefined {
  const check = checkReceiptToken(request.url, key, provider);
  if (check === 'missing') return { kind: 'unsigned' };
  if (check === 'bad') return { kind: 'bad_signature' };
  return undefined;
}

/** A receipt's JSON body, or `undefined` when the bytes are not JSON. */
export function receiptJson(request: ReceiptRequest): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(request.rawBody.toString('utf8')) as unknown };
  } catch {
    return undefined;
  }
}

/** The last path segment of a receipt URL: the gateway's message id. */
export function messageIdInUrl(url: string): string | undefined {
  const segment = new URL(url).pathname.split('/').at(-1);
  try {
    return segment === undefined ? undefined : decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** International format without the `+`, as Vonage and Infobip want numbers. */
export const withoutPlus = (value: string) => value.replace(/^\+/, '');
