import { RESEND_COOLDOWN_SECONDS } from '../../domain/authorize/transaction';

/**
 * The resend hint says "in N seconds" and turns into "now" when the cooldown ends, with no
 * script: both texts share one grid cell and a CSS animation delayed by N seconds swaps
 * their visibility. One class per possible N, since the CSP allows no inline styles.
 */
function cooldownRules(maxSeconds: number): string {
  const rules: string[] = [];
  for (let n = 1; n <= maxSeconds; n++) {
    rules.push(`.wait-${n} > span, .wait-${n} > button { animation-delay: ${n}s; }`);
    rules.push(`.wait-${n} .countdown { --cooldown-from: ${n}; animation-duration: ${n}s; animation-timing-function: steps(${n}, end); }`);
  }
  return rules.join('\n');
}

/**
 * Served as /authorize/login.css (a file, so `style-src 'self'` suffices). Logical properties
 * (inline-start, not left) so right-to-left pages (`dir="rtl"`) mirror; long words (German
 * compounds) wrap and hyphenate by the page's `lang` rather than overflow the card.
 */
export const LOGIN_CSS = `
*, *::before, *::after { box-sizing: border-box; }
html { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 100%; line-height: 1.5; color: #1a1a1a; background: #f3f4f6; }
body { margin: 0; padding: 1rem; }
main { max-width: 26rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border-radius: 0.75rem; box-shadow: 0 1px 4px rgba(0, 0, 0, 0.12); overflow-wrap: break-word; hyphens: auto; }
.logo { display: block; max-width: 100%; max-height: 4rem; margin-block-end: 1rem; margin-inline: auto; }
h1 { font-size: 1.4rem; margin: 0 0 0.75rem; }
h2 { font-size: 1.1rem; margin: 0 0 0.5rem; }
.passkey { margin-top: 1.5rem; padding-top: 1rem; border-top: 1px solid #d1d5db; }
[hidden] { display: none !important; }
p { margin: 0 0 1rem; }
label { display: block; font-weight: 600; margin-bottom: 0.25rem; }
.hint { color: #4b5563; font-size: 0.9rem; margin-bottom: 0.5rem; }
input[type="tel"], input[type="text"], select { display: block; width: 100%; max-width: 100%; font: inherit; font-size: 1.25rem; padding: 0.6rem 0.75rem; border: 2px solid #6b7280; border-radius: 0.5rem; margin-bottom: 1rem; background-color: #fff; color: inherit; }
/* A long country name must not widen the column: the select shrinks and truncates its text. */
select { min-width: 0; text-overflow: ellipsis; font-size: 1.1rem; }
input[aria-invalid="true"] { border-color: #b91c1c; }
input:focus, select:focus, button:focus, a:focus { outline: 3px solid #2563eb; outline-offset: 2px; }
button, a.button { display: block; width: 100%; font: inherit; font-size: 1.1rem; padding: 0.7rem; border: 0; border-radius: 0.5rem; background: #1d4ed8; color: #fff; cursor: pointer; }
a.button { text-align: center; text-decoration: none; box-sizing: border-box; }
button.secondary { background: #fff; color: #1d4ed8; border: 2px solid #1d4ed8; }
button.link { background: none; color: #1d4ed8; text-decoration: underline; padding-block: 0.25rem; padding-inline: 0; width: auto; max-width: 100%; text-align: start; font-size: 0.95rem; }
form + form, form + p, .passkey + form { margin-top: 1rem; }
a { color: #1d4ed8; }
.error { border-inline-start: 4px solid #b91c1c; background: #fef2f2; color: #7f1d1d; padding-block: 0.6rem; padding-inline: 0.75rem; margin-bottom: 1rem; }
.notice { border-inline-start: 4px solid #15803d; background: #f0fdf4; color: #14532d; padding-block: 0.6rem; padding-inline: 0.75rem; margin-bottom: 1rem; }
/* Numbers stay left to right in right-to-left text; a typed number is aligned with the page. */
bdi[dir="ltr"] { unicode-bidi: isolate; }
[dir="rtl"] input[dir="ltr"] { text-align: right; }
.language-switcher { margin-top: 1.5rem; padding-top: 1rem; border-top: 1px solid #d1d5db; }
.language-switcher label { font-weight: 400; font-size: 0.9rem; }
.language-row { display: flex; gap: 0.5rem; align-items: stretch; }
.language-row select { flex: 1 1 auto; margin-bottom: 0; font-size: 1rem; padding-block: 0.4rem; }
.language-row button { width: auto; flex: 0 0 auto; font-size: 1rem; padding-block: 0.4rem; padding-inline: 0.9rem; }
.code-input { letter-spacing: 0.3em; }
.cooldown { display: grid; color: #4b5563; font-size: 0.9rem; margin-bottom: 0.5rem; }
.cooldown > span { grid-area: 1 / 1; }
.cooldown-now { visibility: hidden; animation: cooldown-reveal 0s forwards; }
.cooldown-wait { animation: cooldown-conceal 0s forwards; }
/* The seconds left, counted down by animating a registered integer from the cooldown to 0. */
@property --cooldown { syntax: "<integer>"; inherits: false; initial-value: 0; }
.countdown { animation-name: cooldown-count; animation-fill-mode: forwards; counter-reset: cooldown var(--cooldown); }
.countdown::after { content: counter(cooldown); }
@keyframes cooldown-count { from { --cooldown: var(--cooldown-from); } to { --cooldown: 0; } }
.resend { display: grid; }
.resend > button { grid-area: 1 / 1; }
.resend + .resend { margin-top: 0.5rem; }
.resend-ready { visibility: hidden; animation: cooldown-reveal 0s forwards; }
.resend-waiting { animation: cooldown-conceal 0s forwards; }
button:disabled { opacity: 0.55; cursor: not-allowed; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
@keyframes cooldown-reveal { to { visibility: visible; } }
@keyframes cooldown-conceal { to { visibility: hidden; } }
${cooldownRules(RESEND_COOLDOWN_SECONDS)}
`;
