import { createHash } from 'node:crypto';
import { CHANNEL_NAMES, type OutboxMessage } from '@smsauth/contracts';
import { escapeHtml, htmlPage } from '@smsauth/service-kit';

/** Seconds between the page's own reloads (`<meta http-equiv="refresh">`: no script needed). */
export const OUTBOX_PAGE_REFRESH_SECONDS = 5;


const STYLE = `
html { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; line-height: 1.5; color: #1a1a1a; background: #f3f4f6; }
body { margin: 0; padding: 1rem; }
main { max-width: 60rem; margin: 0 auto; }
h1 { font-size: 1.4rem; margin: 0 0 0.5rem; }
table { width: 100%; border-collapse: collapse; background: #fff; }
caption { text-align: left; color: #4b5563; padding-bottom: 0.5rem; }
th, td { text-align: left; vertical-align: top; padding: 0.5rem; border-bottom: 1px solid #e5e7eb; }
td.body { word-break: break-word; }
mark.code { background: #fde68a; color: #1a1a1a; font-weight: 700; font-size: 1.15em; letter-spacing: 0.08em; padding: 0 0.2em; border-radius: 0.2em; }
.empty { background: #fff; padding: 1rem; }
label { display: block; font-weight: 600; margin-bottom: 0.25rem; }
input { font-size: 1rem; padding: 0.4rem; width: 100%; max-width: 24rem; margin-bottom: 0.5rem; }
button { font-size: 1rem; padding: 0.4rem 1rem; }
@media (max-width: 40rem) {
  th, td { display: block; border: 0; padding: 0.15rem 0.5rem; }
  tr { display: block; border-bottom: 1px solid #e5e7eb; padding: 0.5rem 0; }
  thead { display: none; }
  td::before { content: attr(data-label) ": "; color: #4b5563; }
}
`;

/** The page's only style, allowed by its hash: the CSP needs no 'unsafe-inline'. */
export const OUTBOX_PAGE_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;

function layout(title: string, head: string, body: string): string {
  return htmlPage({ title, head: `${head}<style>${STYLE}</style>`, body });
}

/** The message body with every run of 4 to 10 digits (a one-time code) highlighted. */
export function highlightCodes(body: string): string {
  return escapeHtml(body).replace(/(?<![\d+])\d{4,10}(?!\d)/g, (code) => `<mark class="code">${code}</mark>`);
}

function formatTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

function row(message: OutboxMessage): string {
  return `<tr>
<td data-label="Received"><time datetime="${escapeHtml(message.received_at)}">${escapeHtml(formatTime(message.received_at))}</time></td>
<td data-label="To">${escapeHtml(message.recipient)}</td>
<td data-label="Channel">${escapeHtml(CHANNEL_NAMES[message.channel] ?? message.channel)}${message.language ? ` <span lang="en">(${escapeHtml(message.language)})</span>` : ''}</td>
<td data-label="From">${message.sender === null ? '<span aria-label="no sender">-</span>' : escapeHtml(message.sender)}</td>
<td class="body" data-label="Message">${highlightCodes(message.body)}</td>
</tr>`;
}

/**
 * Newest first, as the store lists them. The page reloads itself only when the person asked for
 * it (`watching`, `/outbox?watch=1`), with a link to stop: a page that reloads on its own without
 * asking moves a screen reader's place and cannot be paused (WCAG 2.2.1).
 */
export function outboxPage(messages: readonly OutboxMessage[], watching = false): string {
  const reloading = watching
    ? `This page reloads every ${OUTBOX_PAGE_REFRESH_SECONDS} seconds. <a href="/outbox">Stop reloading</a>`
    : `<a href="/outbox">Check for new messages</a> or <a href="/outbox?watch=1">reload every ${OUTBOX_PAGE_REFRESH_SECONDS} seconds</a>.`;
  const list = messages.length
    ? `<table>
<caption>${messages.length} message${messages.length === 1 ? '' : 's'}, newest first.</caption>
<thead><tr><th scope="col">Received</th><th scope="col">To</th><th scope="col">Channel</th><th scope="col">From</th><th scope="col">Message</th></tr></thead>
<tbody>
${messages.map(row).join('\n')}
</tbody>
</table>`
    : `<p class="empty">No messages yet.</p>`;
  return layout(
    'SMS outbox',
    watching ? `<meta http-equiv="refresh" content="${OUTBOX_PAGE_REFRESH_SECONDS}; url=/outbox?watch=1">\n` : '',
    `<h1>SMS outbox</h1>\n<p>Messages this gateway received (development outbox provider), whatever their channel (SMS, WhatsApp, voice call); none of them reached a phone.</p>\n<p>${reloading}</p>\n${list}`,
  );
}

/** Asked for when OUTBOX_TOKEN protects the page and the browser did not present it. */
export function tokenPage(wrongToken: boolean): string {
  return layout(
    'SMS outbox: token required',
    '',
    `<h1>SMS outbox</h1>
${wrongToken ? '<p role="alert">That token is wrong.</p>\n' : ''}<form method="get" action="/outbox">
<label for="token">Outbox token (OUTBOX_TOKEN)</label>
<input id="token" name="token" type="password" autocomplete="off" required autofocus>
<button type="submit">Open the outbox</button>
</form>`,
  );
}
