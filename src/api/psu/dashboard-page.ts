// The PSU's permission dashboard as HTML (issue 39): the login form, the consents given to TPPs and
// the future-dated payments waiting for their date, each with its one button. Every value is escaped.
import type { PsuConsentView } from '../../services/account-information/psu-consents.ts';
import type { PsuPaymentView } from '../../services/payments/psu-payments.ts';
import { Html, html } from './html.ts';
import { alert, layout } from './pages.ts';

/** The dashboard's path under BASE_PATH; every form of it posts below. */
export const DASHBOARD_PATH = '/psu/dashboard';

/** What a withdrawal or cancellation said, shown once on the dashboard it leads back to. */
export const NOTICES = {
  withdrawn: 'The consent is withdrawn: the provider can no longer read your accounts with it.',
  cancelled: 'The payment is cancelled: it will not be made.',
} as const;
export type Notice = keyof typeof NOTICES;

export function loginPage(
  basePath: string,
  csrf: string,
  failure?: { error: string; psuId: string },
): string {
  return layout(
    'Your permissions',
    html`<h1>Log in to see your permissions</h1>
${alert(failure?.error)}
<form method="post" action="${basePath}${DASHBOARD_PATH}/login"><input type="hidden" name="csrf" value="${csrf}">
<label for="psu_id">PSU id</label><input id="psu_id" name="psu_id" autocomplete="username" required value="${failure?.psuId ?? ''}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button class="primary" type="submit">Log in</button></form>`,
  );
}

function action(basePath: string, csrf: string, path: string, label: string, field: string): Html {
  return html`<form method="post" action="${basePath}${DASHBOARD_PATH}${path}"><input type="hidden" name="csrf" value="${csrf}">
<button class="secondary" type="submit" data-action="${field}">${label}</button></form>`;
}

function consentItem(basePath: string, csrf: string, consent: PsuConsentView): Html {
  const id = encodeURIComponent(consent.consentId);
  return html`<section data-consent="${consent.consentId}"><dl>
<dt>Provider</dt><dd data-field="tpp">${consent.tppName}</dd>
<dt>Access</dt><dd data-field="access">${consent.access}</dd>
<dt>Valid until</dt><dd data-field="valid-until">${consent.validUntil}</dd>
<dt>Last access</dt><dd data-field="last-access">${consent.lastAccess ?? 'Not yet'}</dd>
<dt>Accesses per day</dt><dd data-field="accesses-per-day">${consent.accessesPerDay}</dd>
</dl>${action(basePath, csrf, `/consents/${id}/withdraw`, 'Withdraw consent', 'withdraw')}</section>`;
}

function paymentItem(basePath: string, csrf: string, payment: PsuPaymentView): Html {
  const id = encodeURIComponent(payment.paymentId);
  return html`<section data-payment="${payment.paymentId}"><dl>
<dt>Amount</dt><dd class="amount" data-field="amount">${payment.amount} ${payment.currency}</dd>
<dt>To</dt><dd data-field="creditor">${payment.creditorName ?? ''}</dd>
<dt>To account</dt><dd data-field="creditor-account">${payment.creditorAccount}</dd>
<dt>Date</dt><dd data-field="date">${payment.executionDate}</dd>
<dt>Initiated by</dt><dd data-field="tpp">${payment.tppName}</dd>
</dl>${action(basePath, csrf, `/payments/${id}/cancel`, 'Cancel payment', 'cancel')}</section>`;
}

function list<T>(items: readonly T[], empty: string, item: (value: T) => Html): Html {
  if (items.length === 0) return html`<p class="who">${empty}</p>`;
  return new Html(items.map((value) => item(value).text).join('<hr>'));
}

export interface Dashboard {
  readonly psuId: string;
  readonly consents: readonly PsuConsentView[];
  readonly payments: readonly PsuPaymentView[];
  readonly notice: Notice | undefined;
}

export function dashboardPage(basePath: string, csrf: string, dashboard: Dashboard): string {
  const notice =
    dashboard.notice === undefined
      ? new Html('')
      : html`<p class="banner" role="status" data-field="notice">${NOTICES[dashboard.notice]}</p>`;
  return layout(
    'Your permissions',
    html`<h1>Your permissions</h1><p class="who">Logged in as <strong data-field="psu">${dashboard.psuId}</strong></p>
${notice}<h2>Access to your accounts</h2>
${list(dashboard.consents, 'No provider has access to your accounts.', (consent) => consentItem(basePath, csrf, consent))}
<h2>Future-dated payments</h2>
${list(dashboard.payments, 'No payment is waiting for its date.', (payment) => paymentItem(basePath, csrf, payment))}
${action(basePath, csrf, '/logout', 'Log out', 'logout')}`,
  );
}

/** A page that says one thing: an unknown id, a form no longer valid, a payment too late to cancel. */
export function messagePage(basePath: string, title: string, text: string): string {
  return layout(
    title,
    html`<h1>${title}</h1><p>${text}</p><p><a href="${basePath}${DASHBOARD_PATH}">Back to your permissions</a></p>`,
  );
}
