import { LOG_EVENT_TYPES } from '../../contracts/src/tenant-logs';
import { detailEntries, LOG_TYPE_CHOICES, logQueryOf, NO_FILTERS, shortDate, summaryLine, summaryOf } from '../src/screens/logs-data';
import type { TenantLog } from '../src/screens/timeline';

const failedCode: TenantLog = {
  log_id: '90020260101000000000000000000000000000000000001',
  date: '2026-03-04T05:06:07.891Z',
  type: 'fp',
  description: 'Incorrect Verification Code',
  client_name: 'Console',
  connection: 'sms',
  ip: '203.0.113.7',
  user_id: 'sms|01e1abcdef',
  phone_number: '***0199',
  details: { error: 'invalid_grant', attempts_left: 2 },
};

describe('the log filters, as the log search query', () => {
  it('sends no query when nothing is chosen', () => {
    expect(logQueryOf(NO_FILTERS)).toBeUndefined();
  });

  it('asks for one type', () => {
    expect(logQueryOf({ ...NO_FILTERS, type: 'fp' })).toBe('type:fp');
  });

  it('includes the whole last day by ending before the next one', () => {
    expect(logQueryOf({ ...NO_FILTERS, from: '2026-02-27', to: '2026-02-28' })).toBe('date:[2026-02-27 TO 2026-03-01}');
    expect(logQueryOf({ ...NO_FILTERS, to: '2026-12-31' })).toBe('date:[* TO 2027-01-01}');
  });

  it('leaves an end open when only the first day is chosen', () => {
    expect(logQueryOf({ ...NO_FILTERS, from: '2026-02-27' })).toBe('date:[2026-02-27 TO *]');
  });

  it('joins the type, the dates and further terms with AND', () => {
    expect(logQueryOf({ type: 'cs', from: '2026-01-01', to: '2026-01-01', text: ' ip:203.0.113.7 ' })).toBe('type:cs AND date:[2026-01-01 TO 2026-01-02} AND ip:203.0.113.7');
  });

  it('offers types that exist, in the words the API describes them', () => {
    for (const [type, words] of LOG_TYPE_CHOICES) expect([type, LOG_EVENT_TYPES[type as keyof typeof LOG_EVENT_TYPES]]).toEqual([type, words]);
  });
});

describe('a log event as one readable line', () => {
  it('says who, what, from where and why it failed', () => {
    expect(summaryOf(failedCode)).toEqual({
      who: '***0199',
      userId: 'sms|01e1abcdef',
      what: 'Incorrect Verification Code',
      where: 'via Console (sms) from 203.0.113.7',
      failed: true,
      outcome: 'failed: invalid_grant',
    });
    expect(summaryLine(failedCode)).toBe('***0199 — Incorrect Verification Code via Console (sms) from 203.0.113.7 — failed: invalid_grant');
  });

  it('names the user id when the event has no number, and says ok for a success', () => {
    const login: TenantLog = { log_id: '1', date: '2026-03-04T05:06:07Z', type: 's', description: 'Success Login', user_id: 'sms|01e1', details: {} };
    expect(summaryLine(login)).toBe('sms|01e1 — Success Login — ok');
  });

  it('says when nobody is known', () => {
    const start: TenantLog = { log_id: '2', date: '2026-03-04T05:06:07Z', type: 'api_limit', description: 'Rate Limit on the Authentication API', details: {} };
    expect(summaryLine(start)).toBe('Someone unknown — Rate Limit on the Authentication API — failed');
  });

  it('lists the details by name, nested values as JSON, empty ones left out', () => {
    const entries = detailEntries({ ...failedCode, details: { ...failedCode.details, empty: '', delivery: { status: 'sent' } } });
    expect(entries).toEqual([
      ['Log id', failedCode.log_id],
      ['Type', 'fp'],
      ['User id', 'sms|01e1abcdef'],
      ['Application', 'Console'],
      ['Connection', 'sms'],
      ['IP address', '203.0.113.7'],
      ['error', 'invalid_grant'],
      ['attempts left', '2'],
      ['delivery', '{"status":"sent"}'],
    ]);
  });

  it('shows the date to the minute, in UTC, on one line', () => {
    expect(shortDate(failedCode.date)).toBe('2026-03-04 05:06');
  });
});
