/**
 * The management API (`{domain}/api/v2`), called with the operator's access token. Errors keep
 * the API's own words: the console shows `message`/`error_description` and the code as sent.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** A 400's `details`: each refused field's path (`options.gateway_url`) and what is wrong with it. */
    readonly details: ReadonlyArray<{ path: string; message: string }> = [],
  ) {
    super(message);
  }
}

/** Reads an error body in either shape identity answers (`{error, error_description}` or Auth0's `{statusCode, error, message, errorCode}`). */
export async function apiErrorOf(response: Response): Promise<ApiError> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const message = body.message ?? body.error_description ?? body.error ?? text;
    const code = body.errorCode ?? body.error ?? String(response.status);
    const details = Array.isArray(body.details)
      ? (body.details as unknown[]).flatMap((d) => {
          const detail = d as { path?: unknown; message?: unknown };
          return typeof detail?.message === 'string' ? [{ path: String(detail.path ?? ''), message: detail.message }] : [];
        })
      : [];
    return new ApiError(response.status, String(code), String(message), details);
  } catch {
    return new ApiError(response.status, String(response.status), text || response.statusText);
  }
}

export type Query = Record<string, string | number | boolean | undefined>;

export class Api {
  constructor(
    private readonly baseUrl: string,
    private readonly accessToken: () => Promise<string>,
  ) {}

  private url(path: string, query?: Query): string {
    const url = new URL(`${this.baseUrl}/api/v2${path}`);
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined && value !== '') url.searchParams.set(name, String(value));
    return url.href;
  }

  async request<T>(method: string, path: string, options: { query?: Query; body?: unknown } = {}): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${await this.accessToken()}`, accept: 'application/json' };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(this.url(path, options.query), {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    if (!response.ok) throw await apiErrorOf(response);
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** A multipart/form-data POST (a file upload): the browser sets the content type and its boundary. */
  async upload<T>(path: string, form: FormData): Promise<T> {
    const response = await fetch(this.url(path), {
      method: 'POST',
      headers: { authorization: `Bearer ${await this.accessToken()}`, accept: 'application/json' },
      body: form,
    });
    if (!response.ok) throw await apiErrorOf(response);
    return (await response.json()) as T;
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', path, { query });
  }
  post<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('POST', path, { body: body ?? {} });
  }
  patch<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PATCH', path, { body });
  }
  put<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('PUT', path, { body });
  }
  delete<T = void>(path: string, query?: Query): Promise<T> {
    return this.request<T>('DELETE', path, { query });
  }
}

/** A path segment, encoded (`+` in prefixes and phone numbers, `|` in user ids). */
export function seg(value: string): string {
  return encodeURIComponent(value);
}
