import { fireEvent, render, screen, within } from '@testing-library/preact';
import { LogRow } from '../src/screens/logs';
import type { TenantLog } from '../src/screens/timeline';

const log: TenantLog = {
  log_id: '900202603040506',
  date: '2026-03-04T05:06:07.891Z',
  type: 'fp',
  description: 'Incorrect Verification Code',
  client_name: 'Console',
  ip: '203.0.113.7',
  user_id: 'sms|01e1abcdef',
  phone_number: '***0199',
  details: { error: 'invalid_grant' },
};

function renderRow(event: TenantLog) {
  return render(
    <table>
      <tbody>
        <LogRow log={event} />
      </tbody>
    </table>,
  );
}

describe('a row of the logs table', () => {
  it("links the number to the user's page instead of showing the user id", () => {
    renderRow(log);
    const link = screen.getByRole('link', { name: '***0199' });
    expect(link.getAttribute('href')).toBe('#/users/sms%7C01e1abcdef');
    expect(screen.getByRole('row').textContent).toContain('Incorrect Verification Code via Console from 203.0.113.7 — failed: invalid_grant');
  });

  it('shows the number without a link when the event names no user', () => {
    const { user_id: _omitted, ...noUser } = log;
    renderRow(noUser);
    expect(screen.queryByRole('link')).toBeNull();
    expect(screen.getByText('***0199').tagName).toBe('STRONG');
  });

  it('keeps the date to one short line, the full time in its title', () => {
    renderRow(log);
    const time = screen.getByText('2026-03-04 05:06');
    expect(time.getAttribute('dateTime')).toBe(log.date);
    expect(time.getAttribute('title')).toBe(log.date);
  });

  it('shows the details as a definition list and the raw JSON one click away', () => {
    renderRow(log);
    const details = screen.getByRole('group');
    const terms = within(details).getAllByRole('term').map((dt) => dt.textContent);
    expect(terms).toEqual(['Log id', 'Type', 'User id', 'Application', 'IP address', 'error']);
    expect(details.querySelector('pre')).toBeNull();
    fireEvent.click(within(details).getByRole('button', { name: 'Show the raw JSON' }));
    expect(JSON.parse(details.querySelector('pre')!.textContent!)).toEqual(log);
    expect(within(details).getByRole('button', { name: 'Hide the raw JSON' }).getAttribute('aria-expanded')).toBe('true');
  });
});
