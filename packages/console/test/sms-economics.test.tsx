import { fireEvent, render, screen, within } from '@testing-library/preact';
import { toCsv } from '../src/csv';
import { attemptOf, attemptsCsv, countriesCsv, economicsByKey, economicsTotals, seconds, usd } from '../src/sms-economics';
import { SpendFigures } from '../src/screens/sms-economics';
import type { SmsStatsRow } from '../src/stats';
import type { TenantLog } from '../src/screens/timeline';

const row = (period: string, key: string, figures: Partial<SmsStatsRow>): SmsStatsRow => ({
  period,
  key,
  sent: 0,
  verified: 0,
  conversion: null,
  refused: {},
  passkey_logins: 0,
  spend_usd: 0,
  saved_usd: 0,
  ...figures,
});

// Two days: Britain sends 5 codes at 0.0524 and saves one at the same price, the US sends 3 at 0.0083.
const rows = [
  row('2030-01-01T00:00:00.000Z', 'GB', { sent: 3, verified: 2, spend_usd: 0.1572, refused: { fraud_guard: 1 } }),
  row('2030-01-02T00:00:00.000Z', 'GB', { sent: 2, verified: 1, spend_usd: 0.1048, passkey_logins: 1, saved_usd: 0.0524 }),
  row('2030-01-01T00:00:00.000Z', 'US', { sent: 3, verified: 3, spend_usd: 0.0249 }),
];

describe('CSV', () => {
  it('quotes commas, quotes and line breaks, and ends lines with CRLF', () => {
    expect(toCsv(['a', 'b'], [['x,y', 'say "hi"'], ['two\nlines', 3]])).toBe('a,b\r\n"x,y","say ""hi"""\r\n"two\nlines",3\r\n');
  });

  it('keeps a spreadsheet from running a cell as a formula, but leaves numbers and empty cells alone', () => {
    expect(toCsv(['v'], [['=HYPERLINK("x")'], ['+447400'], ['@SUM(1)'], [-1], [null], [undefined]])).toBe('v\r\n"\'=HYPERLINK(""x"")"\r\n\'+447400\r\n\'@SUM(1)\r\n-1\r\n\r\n\r\n');
  });
});

describe('spend and saved', () => {
  it('sums the period per country, biggest spender first, and in total', () => {
    expect(economicsByKey(rows)).toEqual([
      { key: 'GB', sent: 5, verified: 3, conversion: 0.6, refused: 1, passkeyLogins: 1, spend: 0.262, saved: 0.0524 },
      { key: 'US', sent: 3, verified: 3, conversion: 1, refused: 0, passkeyLogins: 0, spend: 0.0249, saved: 0 },
    ]);
    expect(economicsTotals(rows)).toEqual({ spend: 0.2869, saved: 0.0524, sent: 8, passkeyLogins: 1 });
  });

  it('exports the per-country figures as CSV', () => {
    expect(countriesCsv(economicsByKey(rows))).toBe(
      'country,sent,verified,conversion,refused,passkey_logins,spend_usd,saved_usd\r\nGB,5,3,0.6,1,1,0.262,0.0524\r\nUS,3,3,1,0,0,0.0249,0\r\n',
    );
  });

  it('writes amounts and durations as an operator reads them', () => {
    expect([usd(0), usd(0.2869), usd(12.5), usd(null)]).toEqual(['$0.00', '$0.2869', '$12.50', '—']);
    expect([seconds(12.34), seconds(125), seconds(null)]).toEqual(['12.3 s', '2 min 5 s', '—']);
  });

  it('shows the spend, the saving and each country on the Overview, and offers the CSV', () => {
    render(<SpendFigures rows={rows} periodLabel="in the last 14 days" />);
    expect(screen.getByTestId('spend').textContent).toBe('Spend: $0.2869 for 8 codes sent. Saved by passkeys: $0.0524 (1 login without a code).');
    const table = screen.getByTestId('spend-table');
    expect(within(table).getAllByRole('row').map((r) => r.textContent)).toEqual([
      'CountrySentVerifiedConversionRefusedSpendSaved by passkeys',
      'GB5360.0 %1$0.2620$0.0524',
      'US33100.0 %0$0.0249$0.00',
    ]);
    const created: Blob[] = [];
    URL.createObjectURL = (blob: Blob) => {
      created.push(blob);
      return 'blob:csv';
    };
    URL.revokeObjectURL = () => undefined;
    fireEvent.click(screen.getByRole('button', { name: 'Export by country (CSV)' }));
    expect(created).toHaveLength(1);
    expect(created[0]!.type).toBe('text/csv;charset=utf-8');
  });

  it('says what to do on a tenant that has sent nothing', () => {
    render(<SpendFigures rows={[]} periodLabel="in the last 14 days" />);
    expect(screen.getByTestId('economics-empty').textContent).toContain('No code sent in the last 14 days: send a test code from Connections');
  });
});

describe('the attempts list', () => {
  const base = { date: '2030-01-01T10:00:00.000Z', description: '', phone_number: '***0006', phone_country: 'GB' };
  it('reads a refused start’s reason, a code’s channel and a login’s path from the log', () => {
    const refused: TenantLog = { ...base, log_id: '1', type: 'sms_start_refused', details: { refusal: 'fraud_guard', error: 'access_denied' } };
    const sent: TenantLog = { ...base, log_id: '2', type: 'cs', user_id: 'sms|1', details: { delivery: 'delivered', channel: 'whatsapp' } };
    const login: TenantLog = { ...base, log_id: '3', type: 's', user_id: 'sms|1', details: { via: 'otp' } };
    const limited: TenantLog = { ...base, log_id: '4', type: 'api_limit', phone_country: undefined, details: { error: 'too_many_requests' } };
    const attempts = [refused, sent, login, limited].map(attemptOf);
    expect(attempts.map((a) => [a.number, a.country, a.channel, a.outcome, a.reason])).toEqual([
      ['***0006', 'GB', 'sms', 'refused', 'fraud_guard'],
      ['***0006', 'GB', 'whatsapp', 'sent', 'delivered'],
      ['***0006', 'GB', 'sms', 'verified', 'otp'],
      ['***0006', '', 'sms', 'refused', 'too_many_requests'],
    ]);
    expect(attemptsCsv(attempts.slice(0, 1))).toBe('date,number,country,channel,outcome,reason,log_id\r\n2030-01-01T10:00:00.000Z,***0006,GB,sms,refused,fraud_guard,1\r\n');
  });
});
