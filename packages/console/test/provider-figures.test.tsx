import { render, screen, within } from '@testing-library/preact';
import { ProviderFigures } from '../src/screens/overview';
import type { SmsStatsRow } from '../src/stats';

// uPlot measures the screen, which jsdom has not: the chart is the browser tests' (test-browser); the figures are this test's.
jest.mock('../src/components/chart', () => ({
  TimeChart: ({ testId, series }: { testId: string; series: Array<{ label: string }> }) => <div data-testid={testId}>{series.map((s) => s.label).join(', ')}</div>,
}));

const period = '2030-01-01T00:00:00.000Z';
const row = (key: string, sent: number, verified: number, refused: Record<string, number> = {}): SmsStatsRow => ({
  period,
  key,
  sent,
  verified,
  conversion: sent > 0 ? verified / sent : null,
  refused,
  passkey_logins: 0,
  spend_usd: 0,
  saved_usd: 0,
});

describe('the overview’s figures per delivery provider', () => {
  it('shows sent, verified and conversion per provider, busiest first, without the refusals no provider carried', () => {
    const rows = [row('', 0, 0, { country: 3 }), row('twilio', 4, 3), row('vonage-eu', 10, 8), row('unknown', 2, 1)];
    render(<ProviderFigures times={[Date.parse(period) / 1000]} rows={rows} />);
    const table = screen.getByTestId('provider-table');
    const cells = within(table)
      .getAllByRole('row')
      .map((r) => within(r).queryAllByRole(/cell|columnheader|rowheader/).map((c) => c.textContent));
    expect(cells).toEqual([
      ['Provider', 'Sent', 'Verified', 'Conversion'],
      ['vonage-eu', '10', '8', '80.0 %'],
      ['twilio', '4', '3', '75.0 %'],
      ['Not named by the gateway', '2', '1', '50.0 %'],
    ]);
    expect(screen.getByTestId('provider-chart').textContent).toBe('vonage-eu, twilio, Not named by the gateway');
  });
});
