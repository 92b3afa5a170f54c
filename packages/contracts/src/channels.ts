import { z } from 'zod';
import { CountryCodeSchema } from './phone';

/**
 * How a one-time code reaches the user: a text message, a WhatsApp message, or a phone call
 * that reads it out. `sms` is what every delivery was before channels existed, and what a
 * delivery request without `channel` means.
 */
export const DELIVERY_CHANNELS = ['sms', 'whatsapp', 'voice'] as const;
export const DeliveryChannelSchema = z.enum(DELIVERY_CHANNELS);
export type DeliveryChannel = z.infer<typeof DeliveryChannelSchema>;

/** How people read a channel's name (error descriptions, the hosted page, the outbox). */
export const CHANNEL_NAMES: Readonly<Record<DeliveryChannel, string>> = {
  sms: 'SMS',
  whatsapp: 'WhatsApp',
  voice: 'Voice call',
};

const ChannelListSchema = z
  .array(DeliveryChannelSchema)
  .min(1, { message: 'needs at least one channel' })
  .refine((list) => new Set(list).size === list.length, { message: 'must not name a channel twice' });

const CHANNELS_DESCRIPTION =
  'Which channels may carry a code, in the order a start tries them: `default` for every number, and an ISO 3166-1 ' +
  'alpha-2 country code (`BR`) for that country\'s numbers (it replaces `default` there). Each list names `sms`, ' +
  '`whatsapp` and/or `voice`, at least one, none twice. When a channel cannot take the message (every provider of ' +
  'its gateway route failed), the start tries the next one. Absent: SMS only. A `/passwordless/start` `channel` must ' +
  'be in the number\'s list. `null` on PATCH removes it.';

/**
 * `options.channels`: `{default: ["sms", "voice"], "BR": ["whatsapp", "sms"]}`. Keys are
 * `default` or a country code; `default` may be left out, and then a number of a country
 * not listed gets SMS only.
 */
export const ConnectionChannelsSchema = z
  .record(z.union([z.literal('default'), CountryCodeSchema]), ChannelListSchema)
  .refine((table) => Object.keys(table).length <= 250, { message: 'at most 250 entries' })
  .meta({ description: CHANNELS_DESCRIPTION });
export type ConnectionChannels = z.infer<typeof ConnectionChannelsSchema>;

/** What a connection without `options.channels` allows: SMS, as before channels existed. */
export const DEFAULT_CHANNELS: readonly DeliveryChannel[] = ['sms'];

/** The channels a number of `country` may get, in order (its country's list, else `default`, else SMS only). */
export function channelsForCountry(channels: ConnectionChannels | undefined, country: string | undefined): readonly DeliveryChannel[] {
  if (!channels) return DEFAULT_CHANNELS;
  return (country !== undefined ? channels[country] : undefined) ?? channels.default ?? DEFAULT_CHANNELS;
}
