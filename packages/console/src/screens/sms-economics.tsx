import { useMemo, useState } from 'preact/hooks';
import { itemsOf, ok, type Schema } from '../api';
import { ErrorMessage, Loading, percent, useLoad } from '../components/ui';
import { useCan, useConsole } from '../context';
import { downloadCsv } from '../csv';
import { href } from '../router';
import {
  ATTEMPT_OUTCOMES,
  attemptOf,
  attemptsCsv,
  countriesCsv,
  economicsByKey,
  economicsTotals,
  seconds,
  usd,
} from '../sms-economics';
import type { Period, SmsStatsRow } from '../stats';
import type { TenantLog } from './timeline';

type Price = Schema<'SmsPrices'>['prices'][number];

const CHANNEL_LABELS: Record<string, string> = { sms: 'SMS', whatsapp: 'WhatsApp', voice: 'Voice call', '': '—' };

/** What to do on a tenant with nothing to count yet. */
function NothingSent({ days }: { days: string }) {
  return (
    <p data-testid="economics-empty">
      No code sent {days}: send a test code from <a href={href('connections')}>Connections</a> (a connection's Try it), or wait for the first login.
    </p>
  );
}

/** Spend and what passkeys saved over the period, per country, exportable as CSV. */
export function SpendFigures({ rows, periodLabel }: { rows: SmsStatsRow[]; periodLabel: string }) {
  const totals = useMemo(() => economicsTotals(rows), [rows]);
  const byCountry = useMemo(() => economicsByKey(rows), [rows]);
  if (totals.sent === 0 && totals.passkeyLogins === 0) return <NothingSent days={periodLabel} />;
  return (
    <>
      <p data-testid="spend">
        Spend: <strong>{usd(totals.spend)}</strong> for {totals.sent} {totals.sent === 1 ? 'code' : 'codes'} sent. Saved by passkeys:{' '}
        <strong>{usd(totals.saved)}</strong> ({totals.passkeyLogins} {totals.passkeyLogins === 1 ? 'login' : 'logins'} without a code).
      </p>
      <div class="table-scroll" tabIndex={0}>
        <table data-testid="spend-table">
          <caption class="visually-hidden">Spend by country over the period</caption>
          <thead>
            <tr>
              <th scope="col">Country</th>
              <th scope="col">Sent</th>
              <th scope="col">Verified</th>
              <th scope="col">Conversion</th>
              <th scope="col">Refused</th>
              <th scope="col">Spend</th>
              <th scope="col">Saved by passkeys</th>
            </tr>
          </thead>
          <tbody>
            {byCountry.map((t) => (
              <tr key={t.key}>
                <th scope="row">{t.key || 'unknown'}</th>
                <td>{t.sent}</td>
                <td>{t.verified}</td>
                <td>{percent(t.conversion)}</td>
                <td>{t.refused}</td>
                <td>{usd(t.spend)}</td>
                <td>{usd(t.saved)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <button type="button" onClick={() => downloadCsv('sms-by-country.csv', countriesCsv(byCountry))}>
        Export by country (CSV)
      </button>
    </>
  );
}

/** Time from a code sent to the login it made: p50, p90, p99 over the period. */
export function TimeToVerifyFigures({ period }: { period: Period }) {
  const { api } = useConsole();
  const figures = useLoad(() => ok(api.GET('/api/v2/stats/time-to-verify', { params: { query: { from: period.from.toISOString(), to: period.to.toISOString() } } })), [period]);
  if (figures.loading) return <Loading what="time to verify" />;
  if (figures.error) return <ErrorMessage error={figures.error} />;
  const f = figures.data!;
  if (f.verified === 0) return <p data-testid="time-to-verify">No login with a code in this period, so no time to verify yet.</p>;
  return (
    <p data-testid="time-to-verify">
      Code sent → verified, over {f.verified} {f.verified === 1 ? 'login' : 'logins'}: half within <strong>{seconds(f.p50)}</strong>, 90 % within{' '}
      <strong>{seconds(f.p90)}</strong>, 99 % within <strong>{seconds(f.p99)}</strong>.
    </p>
  );
}

/** The prices spend is counted at: the built-in list prices, the tenant's own over them. */
export function PricesEditor({ changed }: { changed: () => void }) {
  const { api } = useConsole();
  const can = useCan();
  const editable = can('update:tenant_settings');
  const prices = useLoad(() => ok(api.GET('/api/v2/stats/sms-prices')), []);
  const [country, setCountry] = useState('');
  const [channel, setChannel] = useState('sms');
  const [price, setPrice] = useState('');
  const [error, setError] = useState<unknown>();
  const [saving, setSaving] = useState(false);

  const save = async (entry: { country: string; channel: 'sms' | 'whatsapp' | 'voice'; price: number | null }) => {
    setSaving(true);
    setError(undefined);
    try {
      await ok(api.PATCH('/api/v2/stats/sms-prices', { body: { prices: [entry] } }));
      prices.reload();
      changed();
      return true;
    } catch (err) {
      setError(err);
      return false;
    } finally {
      setSaving(false);
    }
  };

  if (prices.loading) return <Loading what="prices" />;
  if (prices.error) return <ErrorMessage error={prices.error} />;
  const list = prices.data!.prices;
  return (
    <>
      <p>
        USD per message (a voice call: per call). The built-in prices are rounded public list prices to adjust to your contract; <code>*</code> is every
        other country.
      </p>
      <div class="table-scroll" tabIndex={0}>
        <table data-testid="prices-table">
          <caption class="visually-hidden">Prices per country and channel</caption>
          <thead>
            <tr>
              <th scope="col">Country</th>
              <th scope="col">Channel</th>
              <th scope="col">Price</th>
              <th scope="col">Source</th>
              {editable && <th scope="col">Action</th>}
            </tr>
          </thead>
          <tbody>
            {list.map((p: Price) => (
              <tr key={`${p.country} ${p.channel}`}>
                <th scope="row">{p.country === '*' ? '* (others)' : p.country}</th>
                <td>{CHANNEL_LABELS[p.channel] ?? p.channel}</td>
                <td>${p.price}</td>
                <td>{p.source === 'tenant' ? 'yours' : 'built-in'}</td>
                {editable && (
                  <td>
                    {p.source === 'tenant' && (
                      <button type="button" disabled={saving} onClick={() => void save({ country: p.country, channel: p.channel, price: null })}>
                        Back to built-in
                      </button>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {editable && (
        <form
          class="inline"
          data-testid="price-form"
          onSubmit={(e) => {
            e.preventDefault();
            const value = Number(price);
            if (price.trim() === '' || !Number.isFinite(value)) {
              setError(new Error('Price: give a number of USD, like 0.05'));
              return;
            }
            void save({ country: country.trim().toUpperCase(), channel: channel as 'sms' | 'whatsapp' | 'voice', price: value }).then((done) => done && setPrice(''));
          }}
        >
          <label>
            Country <input value={country} size={4} maxLength={2} placeholder="GB or *" required onInput={(e) => setCountry((e.target as HTMLInputElement).value)} />
          </label>
          <label>
            Channel{' '}
            <select value={channel} onChange={(e) => setChannel((e.target as HTMLSelectElement).value)}>
              <option value="sms">SMS</option>
              <option value="whatsapp">WhatsApp</option>
              <option value="voice">Voice call</option>
            </select>
          </label>
          <label>
            USD <input value={price} inputMode="decimal" size={8} required onInput={(e) => setPrice((e.target as HTMLInputElement).value)} />
          </label>
          <button type="submit" disabled={saving}>
            Set price
          </button>
        </form>
      )}
      <ErrorMessage error={error} />
    </>
  );
}

const ATTEMPTS_PAGE = 20;

/** The recent attempts of one outcome over the period, newest first, by number if given; the page as CSV. */
export function AttemptsList({ period }: { period: Period }) {
  const { api } = useConsole();
  const can = useCan();
  const [type, setType] = useState('sms_start_refused');
  const [number, setNumber] = useState('');
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(0);
  const q = [`type:${type}`, `date:[${period.from.toISOString()} TO ${period.to.toISOString()}}`, ...(search ? [`phone_number:${JSON.stringify(search)}`] : [])].join(' AND ');
  const answer = useLoad(async () => {
    const body = await ok(api.GET('/api/v2/logs', { params: { query: { q, page, per_page: ATTEMPTS_PAGE, include_totals: 'true', sort: 'date:-1' } } }));
    return { attempts: itemsOf<TenantLog>(body, 'logs').map(attemptOf), total: Array.isArray(body) ? body.length : body.total };
  }, [q, page]);
  const first = page * ATTEMPTS_PAGE;

  return (
    <>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(0);
          setSearch(number.trim());
        }}
      >
        <label>
          Outcome{' '}
          <select
            value={type}
            onChange={(e) => {
              setPage(0);
              setType((e.target as HTMLSelectElement).value);
            }}
          >
            {ATTEMPT_OUTCOMES.map((o) => (
              <option key={o.type} value={o.type}>
                {o.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Number <input type="tel" value={number} placeholder="+447400123456" onInput={(e) => setNumber((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Find</button>
      </form>
      {answer.loading ? (
        <Loading what="attempts" />
      ) : answer.error ? (
        <ErrorMessage error={answer.error} />
      ) : answer.data!.attempts.length === 0 ? (
        <p data-testid="attempts-empty">Nothing of this kind in the period{search ? ` for ${search}` : ''}.</p>
      ) : (
        <>
          <div class="table-scroll" tabIndex={0}>
            <table data-testid="attempts-table">
              <caption class="visually-hidden">Attempts</caption>
              <thead>
                <tr>
                  <th scope="col">When (UTC)</th>
                  <th scope="col">Number</th>
                  <th scope="col">Country</th>
                  <th scope="col">Channel</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Reason</th>
                </tr>
              </thead>
              <tbody>
                {answer.data!.attempts.map((a) => (
                  <tr key={a.logId}>
                    <td>{a.date.slice(0, 19).replace('T', ' ')}</td>
                    <td>{a.userId && can('read:users') ? <a href={href('users', a.userId)}>{a.number || a.userId}</a> : a.number || '—'}</td>
                    <td>{a.country || '—'}</td>
                    <td>{CHANNEL_LABELS[a.channel] ?? a.channel}</td>
                    <td>{a.outcome}</td>
                    <td>{a.reason || '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav class="paging" aria-label="Attempt pages">
            <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
              Newer
            </button>
            <span role="status">
              {first + 1}–{first + answer.data!.attempts.length} of {answer.data!.total}
            </span>
            <button type="button" disabled={first + ATTEMPTS_PAGE >= Math.min(answer.data!.total, 1000)} onClick={() => setPage(page + 1)}>
              Older
            </button>
            <button type="button" onClick={() => downloadCsv(`attempts-${type}.csv`, attemptsCsv(answer.data!.attempts))}>
              Export this page (CSV)
            </button>
          </nav>
        </>
      )}
    </>
  );
}
