import { channelsForCountry, ConnectionChannelsSchema, DeliveryRequestSchema, StartRequestSchema } from '../src';
import { deliveryRequestExample } from './examples';
import { issuePaths } from './helpers';

describe('delivery channels in the contracts', () => {
  it('keeps the spec’s three-field delivery request an SMS, and accepts a voice request with its digits and language', () => {
    expect(DeliveryRequestSchema.parse(deliveryRequestExample).channel).toBeUndefined();
    const voice = { ...deliveryRequestExample, channel: 'voice', code: '482913', language: 'pt-BR' };
    expect(DeliveryRequestSchema.parse(voice)).toEqual(voice);
  });

  it.each([
    ['an unknown channel', { channel: 'fax' }, ['channel']],
    ['a code that is not 4-10 digits', { code: '12ab' }, ['code']],
    ['a language that is not a BCP 47 tag', { language: 'pt_BR!' }, ['language']],
  ])('refuses a delivery request with %s', (_rule, changes, path) => {
    expect(issuePaths(DeliveryRequestSchema.safeParse({ ...deliveryRequestExample, ...changes }))).toEqual([path]);
  });

  it('accepts a start with a channel and refuses one with an unknown channel', () => {
    const start = { client_id: 'c', connection: 'sms', phone_number: '+14155550123' };
    expect(StartRequestSchema.parse({ ...start, channel: 'whatsapp' }).channel).toBe('whatsapp');
    expect(issuePaths(StartRequestSchema.safeParse({ ...start, channel: 'pigeon' }))).toEqual([['channel']]);
  });

  it('reads a channel table: the country’s list, else default, else SMS only', () => {
    const table = ConnectionChannelsSchema.parse({ default: ['sms', 'voice'], BR: ['whatsapp', 'sms'] });
    expect(channelsForCountry(table, 'BR')).toEqual(['whatsapp', 'sms']);
    expect(channelsForCountry(table, 'GB')).toEqual(['sms', 'voice']);
    expect(channelsForCountry(table, undefined)).toEqual(['sms', 'voice']);
    expect(channelsForCountry(ConnectionChannelsSchema.parse({ BR: ['whatsapp'] }), 'GB')).toEqual(['sms']);
    expect(channelsForCountry(undefined, 'BR')).toEqual(['sms']);
  });

  it.each([
    ['an empty list', { default: [] }, ['default']],
    ['a channel named twice', { default: ['sms', 'sms'] }, ['default']],
    ['an unknown channel', { default: ['sms', 'fax'] }, ['default', 1]],
    ['a key that is neither default nor a country code', { br: ['sms'] }, ['br']],
  ])('refuses a channel table with %s', (_rule, table, path) => {
    expect(issuePaths(ConnectionChannelsSchema.safeParse(table))).toEqual([path]);
  });
});
