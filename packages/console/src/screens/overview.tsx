import { ok } from '../api';
import { useMemo, useState } from 'preact/hooks';
import { TimeChart, Bars, type Series } from '../components/chart';
import { ErrorMessage, Loading, percent, useLoad } from '../components/ui';
import { useCan, useConsole } from '../context';
import { href } from '../router';
import { bySecond, dailyStats, PERIODS, periodOf, periodStarts, smsStats, totalsByKey, type SmsStatsRow } from '../stats';
import { useBlockedPrefixes } from './fraud-data';
import { AttemptsList, PricesEditor, SpendFigures, TimeToVerifyFigures } from './sms-economics';

/** The period in the words of an empty state ("No code sent in the last 14 days"). */
function emptyPeriod(name: string): string {
  return { '24h': 'in the last 24 hours', '14d': 'in the last 14 days', '30d': 'in the last 30 days' }[name] ?? 'in this period';
}

/** Up to this many countries get a line of their own on the conversion chart. */
const TOP_COUNTRIES = 5;

export function Overview() {
  const { api } = useConsole();
  const can = useCan();
  const [periodName, setPeriodName] = useState('14d');
  const period = useMemo(() => periodOf(periodName), [periodName]);
  const times = useMemo(() => periodStarts(period), [period]);
  const daily = useLoad(() => (period.interval === 'day' ? dailyStats(api, period) : Promise.resolve(undefined)), [period]);
  const sms = useLoad(() => smsStats(api, period, 'country'), [period]);
  const channels = useLoad(() => smsStats(api, period, 'channel'), [period]);
  const providers = useLoad(() => smsStats(api, period, 'provider'), [period]);
  const blocks = useBlockedPrefixes();
  const activeUsers = useLoad(() => ok(api.GET('/api/v2/stats/active-users')), []);

  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <label class="inline">
        Period{' '}
        <select value={periodName} onChange={(e) => setPeriodName((e.target as HTMLSelectElement).value)}>
          {Object.entries(PERIODS).map(([name, p]) => (
            <option key={name} value={name}>
              {p.label}
            </option>
          ))}
        </select>
      </label>

      <p data-testid="active-users">
        Active users in the last 30 days:{' '}
        <strong>{activeUsers.loading ? '…' : activeUsers.error ? '—' : String(activeUsers.data)}</strong>
      </p>
      <ErrorMessage error={activeUsers.error} />

      {period.interval === 'day' && (
        <section class="card" aria-labelledby="logins-title">
          <h2 id="logins-title">Logins and signups per day</h2>
          {daily.loading ? <Loading what="logins" /> : daily.error ? <ErrorMessage error={daily.error} /> : <LoginsChart times={times} rows={daily.data ?? []} />}
        </section>
      )}

      <section class="card" aria-labelledby="sms-title">
        <h2 id="sms-title">SMS sent and verified</h2>
        {sms.loading ? (
          <Loading what="SMS figures" />
        ) : sms.error ? (
          <ErrorMessage error={sms.error} />
        ) : (sms.data ?? []).length === 0 ? (
          <p data-testid="sms-empty">
            No code sent {emptyPeriod(periodName)}: send a test code from <a href={href('connections')}>Connections</a>, then come back here.
          </p>
        ) : (
          <SmsCharts times={times} rows={sms.data ?? []} />
        )}
      </section>

      <section class="card" aria-labelledby="spend-title">
        <h2 id="spend-title">Spend and time to verify</h2>
        {sms.loading ? <Loading what="spend" /> : sms.error ? <ErrorMessage error={sms.error} /> : <SpendFigures rows={sms.data ?? []} periodLabel={emptyPeriod(periodName)} />}
        <TimeToVerifyFigures period={period} />
      </section>

      <section class="card" aria-labelledby="attempts-title">
        <h2 id="attempts-title">Attempts</h2>
        {can('read:logs') ? <AttemptsList period={period} /> : <p>Reading attempts needs the read:logs permission.</p>}
      </section>

      <section class="card" aria-labelledby="prices-title">
        <h2 id="prices-title">Prices</h2>
        <details>
          <summary>Prices per country and channel that spend is counted at</summary>
          <PricesEditor
            changed={() => {
              sms.reload();
              channels.reload();
            }}
          />
        </details>
      </section>

      <section class="card" aria-labelledby="channels-title">
        <h2 id="channels-title">Channels and passkeys</h2>
        {channels.loading ? <Loading what="figures by channel" /> : channels.error ? <ErrorMessage error={channels.error} /> : <ChannelFigures times={times} rows={channels.data ?? []} />}
      </section>

      {/* Only where routing spreads codes over providers: with one, its figures are the ones above. */}
      {providers.error ? (
        <ErrorMessage error={providers.error} />
      ) : (
        providers.data && providersThatCarried(providers.data).length > 1 && <ProviderFigures times={times} rows={providers.data} />
      )}

      <section class="card" aria-labelledby="blocked-title">
        <h2 id="blocked-title">Blocked prefixes now</h2>
        {blocks.loading ? (
          <Loading what="blocked prefixes" />
        ) : blocks.error ? (
          <ErrorMessage error={blocks.error} />
        ) : blocks.data!.length === 0 ? (
          <p>The fraud guard blocks no prefix now.</p>
        ) : (
          <ul data-testid="overview-blocks">
            {blocks.data!.map((b) => (
              <li key={`${b.connection.id} ${b.prefix}`}>
                <strong>{b.prefix}</strong> on {b.connection.name}, until {b.blocked_until.replace('T', ' ').slice(0, 16)} UTC ({b.verified} of {b.sends} verified)
              </li>
            ))}
          </ul>
        )}
        {can('read:connections') && <a href={href('fraud')}>Open the fraud guard</a>}
      </section>
    </section>
  );
}

function LoginsChart({ times, rows }: { times: number[]; rows: Array<{ date: string; logins: number; signups: number }> }) {
  const series = useMemo<Series[]>(() => {
    const byDay = new Map(rows.map((r) => [bySecond(r.date.slice(0, 10)), r]));
    return [
      { label: 'Logins', values: times.map((t) => byDay.get(t)?.logins ?? 0) },
      { label: 'Signups', values: times.map((t) => byDay.get(t)?.signups ?? 0) },
    ];
  }, [times, rows]);
  return <TimeChart title="Logins and signups per day" times={times} series={series} testId="logins-chart" />;
}

function SmsCharts({ times, rows }: { times: number[]; rows: SmsStatsRow[] }) {
  const totals = useMemo(() => totalsByKey(rows), [rows]);
  const sentSeries = useMemo<Series[]>(() => {
    const sent = new Map<number, number>();
    const verified = new Map<number, number>();
    for (const r of rows) {
      const t = bySecond(r.period);
      sent.set(t, (sent.get(t) ?? 0) + r.sent);
      verified.set(t, (verified.get(t) ?? 0) + r.verified);
    }
    return [
      { label: 'Sent', values: times.map((t) => sent.get(t) ?? 0) },
      { label: 'Verified', values: times.map((t) => verified.get(t) ?? 0) },
      { label: 'Conversion', percent: true, values: times.map((t) => ((sent.get(t) ?? 0) > 0 ? (verified.get(t) ?? 0) / sent.get(t)! : null)) },
    ];
  }, [times, rows]);
  const conversionSeries = useMemo(() => conversionSeriesOf(totals.filter((t) => t.sent > 0).slice(0, TOP_COUNTRIES), rows, times), [times, rows, totals]);
  const refusals = useMemo(() => {
    const counts = new Map<string, number>();
    for (const r of rows) for (const [reason, n] of Object.entries(r.refused ?? {})) counts.set(reason, (counts.get(reason) ?? 0) + n);
    return [...counts.entries()].map(([key, value]) => ({ key, value })).sort((a, b) => b.value - a.value);
  }, [rows]);

  return (
    <>
      <TimeChart title="SMS sent, verified and conversion" times={times} series={sentSeries} testId="sms-chart" />
      <h3>Conversion by country</h3>
      {conversionSeries.length > 0 && <TimeChart title="Conversion by country" times={times} series={conversionSeries} testId="conversion-chart" />}
      <TotalsTable totals={totals} testId="country-table" caption="SMS by country over the period" keyHeader="Country" />
      <h3>Refusals by reason</h3>
      <Bars rows={refusals} label="Refusals by reason" />
    </>
  );
}

/** How the figures name each channel ('' holds the passkey logins, which no code carried). */
const CHANNEL_NAMES: Record<string, string> = { sms: 'SMS', whatsapp: 'WhatsApp', voice: 'Voice call' };
const channelName = (key: string) => CHANNEL_NAMES[key] ?? key;

type Totals = ReturnType<typeof totalsByKey>;

/** One conversion line per key over the periods (null where nothing was sent). */
function conversionSeriesOf(keys: Totals, rows: SmsStatsRow[], times: number[], label: (key: string) => string = (key) => key): Series[] {
  return keys.map(({ key }) => {
    const byPeriod = new Map(rows.filter((r) => r.key === key).map((r) => [bySecond(r.period), r]));
    return {
      label: label(key),
      percent: true,
      values: times.map((t) => {
        const r = byPeriod.get(t);
        return r && r.sent > 0 ? r.verified / r.sent : null;
      }),
    };
  });
}

/** Sent, verified, conversion and refusals per key over the whole period; the chart's figures as a table. */
function TotalsTable({
  totals,
  testId,
  caption,
  keyHeader,
  label = (key) => key,
  refusals = true,
}: {
  totals: Totals;
  testId: string;
  caption: string;
  keyHeader: string;
  label?: (key: string) => string;
  /** Whether the keys have refusals of their own (a refused start reached no provider). */
  refusals?: boolean;
}) {
  return (
    <div class="table-scroll" tabIndex={0}>
      <table data-testid={testId}>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{keyHeader}</th>
            <th scope="col">Sent</th>
            <th scope="col">Verified</th>
            <th scope="col">Conversion</th>
            {refusals && <th scope="col">Refused</th>}
          </tr>
        </thead>
        <tbody>
          {totals.map((t) => (
            <tr key={t.key}>
              <th scope="row">{label(t.key)}</th>
              <td>{t.sent}</td>
              <td>{t.verified}</td>
              <td>{percent(t.conversion)}</td>
              {refusals && <td>{t.refused}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ChannelFigures({ times, rows }: { times: number[]; rows: SmsStatsRow[] }) {
  const totals = useMemo(() => totalsByKey(rows.filter((r) => r.key !== '')), [rows]);
  const passkeyLogins = useMemo(() => rows.reduce((n, r) => n + r.passkey_logins, 0), [rows]);
  const codeLogins = totals.reduce((n, t) => n + t.verified, 0);
  const conversionSeries = useMemo(() => conversionSeriesOf(totals.filter((t) => t.sent > 0), rows, times, channelName), [times, rows, totals]);
  const passkeyShare = passkeyLogins + codeLogins > 0 ? passkeyLogins / (passkeyLogins + codeLogins) : null;
  return (
    <>
      <p data-testid="passkey-logins">
        Passkey logins: <strong>{passkeyLogins}</strong>, so <strong>{passkeyLogins}</strong> {passkeyLogins === 1 ? 'code' : 'codes'} not sent
        {passkeyShare !== null && <> ({percent(passkeyShare)} of logins)</>}.
      </p>
      {conversionSeries.length > 1 && <TimeChart title="Conversion by channel" times={times} series={conversionSeries} testId="channel-chart" />}
      <TotalsTable totals={totals} testId="channel-table" caption="Codes by channel over the period" keyHeader="Channel" label={channelName} />
    </>
  );
}

/** The providers that carried codes ('' holds refusals and passkey logins, which none carried). */
const providersThatCarried = (rows: SmsStatsRow[]) => [...new Set(rows.filter((r) => r.key !== '' && r.sent > 0).map((r) => r.key))];

/** `unknown`: codes through a gateway that does not name its providers. */
const providerName = (key: string) => (key === 'unknown' ? 'Not named by the gateway' : key);

/** Sent, verified and conversion per delivery provider (the gateway's routing by country and failover). */
export function ProviderFigures({ times, rows }: { times: number[]; rows: SmsStatsRow[] }) {
  const totals = useMemo(() => totalsByKey(rows.filter((r) => r.key !== '')), [rows]);
  const conversionSeries = useMemo(() => conversionSeriesOf(totals.filter((t) => t.sent > 0), rows, times, providerName), [times, rows, totals]);
  return (
    <section class="card" aria-labelledby="providers-title">
      <h2 id="providers-title">Delivery providers</h2>
      <TimeChart title="Conversion by provider" times={times} series={conversionSeries} testId="provider-chart" />
      <TotalsTable totals={totals} testId="provider-table" caption="Codes by delivery provider over the period" keyHeader="Provider" label={providerName} refusals={false} />
    </section>
  );
}
