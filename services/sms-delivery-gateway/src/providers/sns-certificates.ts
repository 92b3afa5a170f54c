import type { AxiosInstance } from 'axios';
import { LRUCache } from 'lru-cache';

/**
 * SNS signing certificates by URL, fetched once and kept: SNS signs every message of a region
 * with the same certificate for months, and a receipt must not wait for a fetch each time. A
 * failed fetch is not kept, so the next message tries again. Callers check the URL first
 * (isSnsUrl): this fetches whatever it is given.
 */
export class SnsCertificates {
  private readonly cache = new LRUCache<string, Promise<string>>({ max: 16 });

  constructor(
    private readonly http: AxiosInstance,
    private readonly timeoutMs: number,
  ) {}

  /** The certificate's PEM, or undefined when it could not be fetched. */
  async get(url: string): Promise<string | undefined> {
    let pending = this.cache.get(url);
    if (pending === undefined) {
      pending = this.fetch(url);
      this.cache.set(url, pending);
    }
    try {
      return await pending;
    } catch {
      this.cache.delete(url);
      return undefined;
    }
  }

  private async fetch(url: string): Promise<string> {
    const response = await this.http.get<string>(url, { timeout: this.timeoutMs, maxRedirects: 0, responseType: 'text', validateStatus: (status) => status === 200 });
    if (typeof response.data !== 'string' || !response.data.includes('-----BEGIN CERTIFICATE-----')) throw new Error('not a PEM certificate');
    return response.data;
  }
}
