// The PSU's pages: plain server-rendered HTML, one small inline stylesheet, no external assets,
// usable on a phone. Every value is escaped.
import type { EidPage, Page } from '../../services/authorization/psu-answer.ts';
import type { PaymentSummary } from '../../services/shared/authorizables.ts';
import { Html, html } from './html.ts';

const STYLE = `
  *{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
  background:#f3f5f7;color:#1b2430}main{max-width:28rem;margin:0 auto;padding:1.5rem 1rem}
  h1{font-size:1.35rem;margin:0 0 1rem}.card{background:#fff;border-radius:.75rem;padding:1.25rem;
  box-shadow:0 1px 3px rgba(0,0,0,.12)}label{display:block;margin:.75rem 0 .25rem;font-weight:600}
  input{width:100%;padding:.7rem;border:1px solid #9aa5b1;border-radius:.5rem;font-size:1rem}
  button{width:100%;margin-top:1rem;padding:.8rem;border:0;border-radius:.5rem;font-size:1rem;font-weight:600;
  cursor:pointer}.primary{background:#005aa0;color:#fff}.secondary{background:#e4e8ec;color:#1b2430}
  .error{background:#fdecea;color:#8a1c12;padding:.75rem;border-radius:.5rem}dl{margin:0}
  dt{color:#52606d;font-size:.85rem;margin-top:.75rem}dd{margin:0;font-weight:600;overflow-wrap:anywhere}
  .amount{font-size:1.6rem}.who{color:#52606d;font-size:.9rem;margin-bottom:1rem}
  .banner{background:#fff4ce;color:#5c3c00;padding:.75rem;border-radius:.5rem;margin:0 0 1rem;font-size:.9rem}`;

export function layout(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title><style>${new Html(STYLE)}</style></head>
<body><main><div class="card">${body}</div></main></body></html>`.text;
}

export function alert(error: string | undefined): Html {
  return error === undefined ? new Html('') : html`<p class="error" role="alert">${error}</p>`;
}

function hidden(form: { request: string; csrf: string }): Html {
  return html`<input type="hidden" name="request" value="${form.request}"><input type="hidden" name="csrf" value="${form.csrf}">`;
}

function summary(payment: PaymentSummary): Html {
  return html`<dl>
<dt>Amount</dt><dd class="amount" data-field="amount">${payment.amount} ${payment.currency}</dd>
<dt>To</dt><dd data-field="creditor">${payment.creditorName ?? ''}</dd>
<dt>To account</dt><dd data-field="creditor-account">${payment.creditorAccount}</dd>
<dt>From account</dt><dd data-field="debtor-account">${payment.debtorAccount}</dd>
${payment.executionDate === null ? new Html('') : html`<dt>Date</dt><dd data-field="date">${payment.executionDate}</dd>`}
</dl>`;
}

export function renderPage(
  page: Page,
  form: { request: string; csrf: string } | undefined,
  basePath: string,
): string {
  switch (page.view) {
    case 'login':
      return layout(
        'Log in',
        html`<h1>Log in to approve a payment</h1><p class="who">Requested by <strong>${page.appName}</strong></p>
${alert(page.error)}
<form method="post" action="${basePath}/psu/login">${form === undefined ? new Html('') : hidden(form)}
<label for="psu_id">PSU id</label><input id="psu_id" name="psu_id" autocomplete="username" required value="${page.psuId ?? ''}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button class="primary" type="submit">Log in</button></form>`,
      );
    case 'consent':
      return layout(
        'Approve payment',
        html`<h1>${page.access !== undefined ? 'Share your accounts?' : page.payments.length === 1 ? 'Approve this payment?' : `Approve these ${page.payments.length} payments?`}</h1><p class="who"><strong>${page.appName}</strong> asks you to approve:</p>
${page.access === undefined ? new Html(page.payments.map((payment) => summary(payment).text).join('<hr>')) : html`<p data-field="access">${page.access}</p>`}
<form method="post" action="${basePath}/psu/consent">${form === undefined ? new Html('') : hidden(form)}
<button class="primary" type="submit" name="decision" value="approve">Approve</button>
<button class="secondary" type="submit" name="decision" value="deny">Deny</button></form>`,
      );
    case 'message':
      return layout(page.title, html`<h1>${page.title}</h1><p>${page.text}</p>`);
    case 'eid-start':
    case 'eid-identify':
    case 'eid-order':
    case 'eid-message':
      return eidPage(page, form, basePath);
  }
}

/** What every simulator page says first, so that nobody takes it for the bank's e-ID. */
const SIMULATOR_NOTICE: Readonly<Record<EidPage['mode'], string>> = {
  sandbox:
    'Sandbox e-ID simulator, not a real e-ID: sign as a test PSU with its personal number and the test password (see the sandbox page). No real money moves.',
  live: "e-ID simulator, not the bank's e-ID: it identifies you by personal number and password alone. This gateway runs it for trying live without the bank's e-ID only.",
};

function eidPage(
  page: EidPage,
  form: { request: string; csrf: string } | undefined,
  basePath: string,
): string {
  const notice = html`<p class="banner" role="note" data-field="simulator-notice">${SIMULATOR_NOTICE[page.mode]}</p>`;
  const csrf =
    form === undefined ? new Html('') : html`<input type="hidden" name="csrf" value="${form.csrf}">`;
  switch (page.view) {
    case 'eid-start':
      return layout(
        'Mobile e-ID',
        html`${notice}<h1>Mobile e-ID (simulator)</h1>
${alert(page.error)}
<form method="post" action="${basePath}/psu/eid/open">${csrf}
<label for="input">Personal number, start token or QR code</label><input id="input" name="input" required autocomplete="off">
<button class="primary" type="submit">Open</button></form>`,
      );
    case 'eid-identify':
      return layout(
        'Identify',
        html`${notice}<h1>Identify</h1><p>Identify with your personal number and password to see what you are asked to sign.</p>
${alert(page.error)}
<form method="post" action="${basePath}/psu/eid/identify">${form === undefined ? new Html('') : hidden(form)}
<label for="psu_id">Personal number</label><input id="psu_id" name="psu_id" autocomplete="username" required value="${page.psuId ?? ''}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button class="primary" type="submit">Identify</button></form>`,
      );
    case 'eid-order':
      return layout(
        'Sign',
        html`${notice}<h1>Sign</h1><p data-field="visible-text">${page.text}</p>
<form method="post" action="${basePath}/psu/eid/sign">${form === undefined ? new Html('') : hidden(form)}
<button class="primary" type="submit" name="decision" value="approve">Sign</button>
<button class="secondary" type="submit" name="decision" value="decline">Cancel</button></form>`,
      );
    case 'eid-message':
      return layout(page.title, html`${notice}<h1>${page.title}</h1><p>${page.text}</p>`);
  }
}
