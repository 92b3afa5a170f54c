import { ProviderError, describeTransportFailure, scrubSecrets, type ProviderFactory } from './provider';

/** The fields of a Twilio REST error body the gateway uses. */
interface TwilioErrorBody {
  code?: unknown;
  message?: unknown;
}

/**
 * Twilio Programmable Messaging: `POST /2010-04-01/Accounts/{sid}/Messages.json`,
 * form-encoded, HTTP basic auth. The sender is the operator's `TWILIO_FROM` and/or
 * Messaging Service, not the request's `sender`: Twilio only sends from numbers the
 * account owns.
 */
export const createTwilioProvider: ProviderFactory = ({ config, http }) => {
  const accountSid = config.TWILIO_ACCOUNT_SID ?? '';
  const authToken = config.TWILIO_AUTH_TOKEN ?? '';
  const url = `${config.TWILIO_API_BASE_URL.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json`;
  const timeout = config.TWILIO_TIMEOUT_MS;
  const fail = (description: string, details: ProviderError['details'] = {}) =>
    new ProviderError('twilio', scrubSecrets(description, [authToken]), details);

  return {
    name: 'twilio',
    async send(message) {
      const form = new URLSearchParams({ To: message.recipient, Body: message.body });
      if (config.TWILIO_MESSAGING_SERVICE_SID) form.set('MessagingServiceSid', config.TWILIO_MESSAGING_SERVICE_SID);
      // Both may be set: Twilio then sends from From and applies the service's features.
      if (config.TWILIO_FROM) form.set('From', config.TWILIO_FROM);

      let response;
      try {
        response = await http.post<unknown>(url, form.toString(), {
          auth: { username: accountSid, password: authToken },
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          timeout,
          maxRedirects: 0,
          validateStatus: () => true,
        });
      } catch (err) {
        throw fail(`Twilio request failed: ${describeTransportFailure(err, timeout)}`);
      }

      if (response.status >= 200 && response.status < 300) {
        const sid = (response.data as { sid?: unknown } | undefined)?.sid;
        return typeof sid === 'string' ? { providerMessageId: sid } : {};
      }
      const body = (typeof response.data === 'object' && response.data !== null ? response.data : {}) as TwilioErrorBody;
      const code = typeof body.code === 'number' || typeof body.code === 'string' ? body.code : undefined;
      const reason = typeof body.message === 'string' ? body.message : 'no error message';
      const description =
        code !== undefined
          ? `Twilio error ${code} (HTTP ${response.status}): ${reason}`
          : `Twilio answered HTTP ${response.status}: ${reason}`;
      throw fail(description, { status: response.status, ...(code !== undefined ? { code } : {}) });
    },
  };
};
