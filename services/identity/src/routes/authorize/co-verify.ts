import { createHash } from 'node:crypto';
import { escapeHtml, htmlPage } from '@smsauth/service-kit';
import type { PageChrome } from './views';

/**
 * The `/co/verify` page: where the browser did not send the verifier cookie of a login ticket
 * (third-party cookies blocked), it frames the client's `cross_origin_loc` (a page of the
 * application that runs auth0-js `crossOriginVerification()`), asks it for the verifier auth0-js
 * stored under the ticket's `co_id` (auth0-js's `co_verifier_request` / `co_verifier_response`
 * messages, with the frame's origin checked both ways), and posts it with the ticket to
 * `POST /co/verify`. The script is the page's only one (allowed by its hash); the data comes
 * from attributes, never from script text.
 */
export const CO_VERIFY_SCRIPT = `(function () {
  'use strict';
  var form = document.getElementById('co-verify');
  var frame = document.getElementById('co-frame');
  var frameOrigin = form.getAttribute('data-frame-origin');
  var coId = form.getAttribute('data-co-id');
  var done = false;
  window.addEventListener('message', function (evt) {
    if (done || evt.origin !== frameOrigin || evt.source !== frame.contentWindow || !evt.data) return;
    if (evt.data.type === 'ready') {
      frame.contentWindow.postMessage({ type: 'co_verifier_request', request: { id: coId } }, frameOrigin);
    } else if (evt.data.type === 'co_verifier_response') {
      done = true;
      form.elements.co_verifier.value = (evt.data.response && evt.data.response.verifier) || '';
      form.submit();
    }
  });
})();`;

export const CO_VERIFY_SCRIPT_SOURCE = `'sha256-${createHash('sha256').update(CO_VERIFY_SCRIPT).digest('base64')}'`;

export interface CoVerifyView {
  /** The client's cross_origin_loc, with `#origin=` our origin appended. */
  frameUrl: string;
  frameOrigin: string;
  coId: string;
  /** Hidden fields: the authorize parameters, the ticket and the CSRF token. */
  fields: Record<string, string>;
}

/** In the request's language (`ui_locales`, then the browser); no brand (its CSP loads nothing else). */
export function coVerifyPage({ t }: Pick<PageChrome, 't'>, view: CoVerifyView): string {
  const hidden = Object.entries(view.fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');
  return htmlPage({
    title: t.text('smsauth.co-verify.pageTitle'),
    lang: t.language,
    dir: t.dir,
    head: '<link rel="stylesheet" href="/authorize/login.css">',
    body: `<h1>${t.html('smsauth.co-verify.title')}</h1>
<form id="co-verify" method="post" action="/co/verify" data-frame-origin="${escapeHtml(view.frameOrigin)}" data-co-id="${escapeHtml(view.coId)}">
${hidden}
<input type="hidden" name="co_verifier" value="">
<noscript><p>${t.html('smsauth.co-verify.noscriptText')}</p></noscript>
</form>
<iframe id="co-frame" title="${t.html('smsauth.co-verify.frameTitle')}" src="${escapeHtml(view.frameUrl)}" hidden></iframe>
<script>${CO_VERIFY_SCRIPT}</script>`,
  });
}
