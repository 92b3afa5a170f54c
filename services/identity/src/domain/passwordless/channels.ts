import { CHANNEL_NAMES, channelsForCountry, DeliveryChannelSchema, ErrorCodes, type DeliveryChannel } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';
import type { StoredConnection } from '../../store';
import { canonicalPhoneNumber, type CanonicalPhoneNumber } from '../phone/canonical-number';

/**
 * The channels one start tries, in order: the caller's choice first when it made one (it must
 * be one the connection allows for the number), then the rest of the number's list
 * (`options.channels`), so a channel that cannot take the message falls back to the next.
 * `avoid` (the channel a receipt said did not deliver to this number last time) goes last.
 */
export function channelPlan(
  connection: Pick<StoredConnection, 'options'>,
  number: Pick<CanonicalPhoneNumber, 'country'>,
  requested: DeliveryChannel | undefined,
  avoid?: DeliveryChannel,
): DeliveryChannel[] {
  const allowed = channelsForCountry(connection.options.channels, number.country);
  if (requested !== undefined && !allowed.includes(requested)) throw channelNotAllowed(requested, allowed, number.country);
  const ordered = requested === undefined ? [...allowed] : [requested, ...allowed.filter((channel) => channel !== requested)];
  // The user's own choice is never second-guessed by an older receipt.
  if (requested !== undefined || avoid === undefined || ordered.length < 2 || ordered[0] !== avoid) return ordered;
  return [...ordered.slice(1), avoid];
}

/** 400 naming the channel and what the connection allows instead. */
export function channelNotAllowed(requested: DeliveryChannel, allowed: readonly DeliveryChannel[], country: string | undefined): HttpError {
  const where = country ? ` for numbers of ${country}` : '';
  return new HttpError(
    400,
    ErrorCodes.BAD_REQUEST,
    `channel: ${requested} is not enabled for this connection${where} (options.channels allows ${allowed.join(', ')})`,
  );
}

/** "SMS", "WhatsApp message", "Voice call": how a refusal names the channel it refused. */
export function channelNoun(channel: DeliveryChannel): string {
  return channel === 'whatsapp' ? 'WhatsApp messages' : channel === 'voice' ? 'Voice calls' : CHANNEL_NAMES.sms;
}

/**
 * What the hosted code page says and offers: the channel of the last code (`sms` when unknown:
 * a transaction from before channels, or a test number's, which is sent nothing) and the
 * channels the connection allows for the number, in its order.
 */
export function codePageChannels(
  connection: Pick<StoredConnection, 'options'> | undefined,
  phoneNumber: string | null,
  used: string | null | undefined,
): { channel: DeliveryChannel; channels: readonly DeliveryChannel[] } {
  const parsed = phoneNumber ? canonicalPhoneNumber(phoneNumber) : undefined;
  const channels = channelsForCountry(connection?.options.channels, parsed?.ok ? parsed.number.country : undefined);
  const channel = DeliveryChannelSchema.safeParse(used);
  return { channel: channel.success ? channel.data : 'sms', channels };
}
