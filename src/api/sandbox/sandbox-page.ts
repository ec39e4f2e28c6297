// GET /sandbox: the sandbox page. Plain server-rendered HTML, every value escaped; one inline
// stylesheet and one inline script (copy buttons), both allowed by their hashes in the
// Content-Security-Policy, nothing else loaded.
import { createHash } from 'node:crypto';
import { Html, html } from '../psu/html.ts';
import type { SandboxTestData } from './schemas.ts';
import type { WalkthroughSection } from './walkthrough/walkthrough.ts';

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
background:#f3f5f7;color:#1b2430}main{max-width:74rem;margin:0 auto;padding:1.5rem 1rem 3rem}
h1{font-size:1.7rem;margin:0 0 .5rem}h2{font-size:1.3rem;margin:2.5rem 0 .75rem;padding-bottom:.25rem;
border-bottom:2px solid #d5dbe1}h3{font-size:1.1rem;margin:1.75rem 0 .25rem}h4{font-size:1rem;margin:0}
p{margin:.25rem 0 .75rem}a{color:#005aa0}.muted{color:#52606d}
.card{background:#fff;border-radius:.75rem;padding:1rem 1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1.25rem;margin:0}
dt{color:#52606d}dd{margin:0;overflow-wrap:anywhere}nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:1rem 0}
code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{margin:.35rem 0 0;padding:.75rem 1rem;background:#0f1720;color:#e6edf3;border-radius:.5rem;overflow-x:auto}
.step{margin:0 0 1.25rem}.step-head{display:flex;align-items:center;justify-content:space-between;gap:1rem}
.step p{margin:.1rem 0}button{border:0;border-radius:.4rem;padding:.3rem .85rem;background:#005aa0;color:#fff;
font:600 .85rem system-ui,sans-serif;cursor:pointer}button:focus-visible{outline:3px solid #7fb8e6}
.scroll{overflow-x:auto;border-radius:.5rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
table{border-collapse:collapse;width:100%;background:#fff}th,td{text-align:left;padding:.4rem .65rem;
border-bottom:1px solid #e4e8ec;vertical-align:top}th{background:#e9eef3;font-size:.85rem;white-space:nowrap}
td code{white-space:nowrap}`;

const SCRIPT = `
for (const button of document.querySelectorAll('button[data-copy]')) {
  const label = button.textContent;
  const say = (word) => {
    button.textContent = word;
    setTimeout(() => { button.textContent = label; }, 1500);
  };
  button.hidden = false;
  button.addEventListener('click', () => {
    const name = button.dataset.copy;
    const sources = name === 'all'
      ? [...document.querySelectorAll('pre.command code')]
      : [document.getElementById(name)];
    const select = () => {
      const range = document.createRange();
      range.setStartBefore(sources[0]);
      range.setEndAfter(sources[sources.length - 1]);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      say('Selected: copy it');
    };
    const text = sources.map((source) => source.textContent).join('\\n\\n');
    if (navigator.clipboard && isSecureContext) navigator.clipboard.writeText(text).then(() => say('Copied'), select);
    else select();
  });
}
`;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** No framing, no referrer, nothing cached; only the page's own stylesheet and script run. */
export const SANDBOX_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': `default-src 'none'; style-src ${sha256(STYLE)}; script-src ${sha256(SCRIPT)}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

export interface SandboxPageView {
  readonly baseUrl: string;
  readonly data: SandboxTestData;
  readonly sections: readonly WalkthroughSection[];
}

const each = <T>(items: readonly T[], render: (item: T) => Html) =>
  new Html(items.map((item) => render(item).text).join(''));
const optional = (value: string | undefined) =>
  value === undefined ? html`<span class="muted">-</span>` : html`<code>${value}</code>`;

function table(headings: readonly string[], rows: Html): Html {
  return html`<div class="scroll"><table><thead><tr>${each(headings, (heading) => html`<th>${heading}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

function walkthroughHtml(sections: readonly WalkthroughSection[]): Html {
  if (sections.length === 0)
    return html`<p>The sandbox app is not seeded yet: reload this page in a moment.</p>`;
  return html`<p>Run the steps in order in one shell: each one uses the variables of the steps before it.
<button type="button" data-copy="all" hidden>Copy all commands</button></p>
${each(
  sections,
  (section) => html`<h3 id="${section.id}">${section.title}</h3><p class="muted">${section.text}</p>
${each(
  section.steps,
  (
    step,
  ) => html`<div class="step"><div class="step-head"><h4>${step.title}</h4><button type="button" data-copy="cmd-${step.id}" hidden>Copy</button></div>
<p class="muted">${step.text}</p><pre class="command"><code id="cmd-${step.id}">${step.command}</code></pre></div>
`,
)}`,
)}`;
}

function testDataHtml(data: SandboxTestData): Html {
  const accounts = data.psus.flatMap((psu) => psu.accounts.map((account) => ({ psu, account })));
  return html`<h2 id="psus">Test PSUs</h2>
<p>In the sandbox the PSU approves at once; live, the login page asks for the personal number and the password.</p>
${table(
  ['personal number (PSU id)', 'name', 'type', 'corporate id'],
  each(
    data.psus,
    (psu) =>
      html`<tr><td><code>${psu.psuId}</code></td><td>${psu.name}</td><td>${psu.type}</td><td>${optional(psu.corporateId)}</td></tr>`,
  ),
)}
<h2 id="accounts">Accounts</h2>
${table(
  ['PSU id', 'account id', 'IBAN', 'BBAN', 'clearing number', 'currency', 'name', 'owner'],
  each(
    accounts,
    ({ psu, account }) =>
      html`<tr><td><code>${psu.psuId}</code></td><td><code>${account.accountId}</code></td><td>${optional(account.iban)}</td><td>${optional(account.bban)}</td><td>${optional(account.clearingNumber)}</td><td>${account.currency}</td><td>${account.name}</td><td>${account.ownerName}</td></tr>`,
  ),
)}
<h2 id="card-accounts">Card accounts and cards</h2>
${table(
  ['card account id', 'PSU id', 'product', 'owner', 'credit limit'],
  each(
    data.cardAccounts,
    (cardAccount) =>
      html`<tr><td><code>${cardAccount.cardAccountId}</code></td><td><code>${cardAccount.psuId}</code></td><td>${cardAccount.product}</td><td>${cardAccount.ownerName}</td><td>${cardAccount.creditLimit.currency} ${cardAccount.creditLimit.amount}</td></tr>`,
  ),
)}
<p class="muted">Funds confirmation takes any card number with a card's first six and last four digits.</p>
${table(
  ['card id', 'card number', 'name', 'draws on'],
  each(
    data.cards,
    (card) =>
      html`<tr><td><code>${card.cardId}</code></td><td><code>${card.maskedPan}</code></td><td>${card.name}</td><td>${card.accountId === undefined ? html`card account <code>${card.cardAccountId}</code>` : html`account <code>${card.accountId}</code>`}</td></tr>`,
  ),
)}
<h2 id="creditors">Creditors at other banks</h2>
${table(
  ['bank', 'country', 'account', 'type', 'BIC', 'pay with'],
  each(
    data.creditors,
    (creditor) =>
      html`<tr><td>${creditor.bank}</td><td>${creditor.country}</td><td><code>${creditor.account}</code></td><td>${creditor.accountType}</td><td>${optional(creditor.bic)}</td><td><code>${creditor.product}</code></td></tr>`,
  ),
)}
<h2 id="scenarios">Scenarios</h2>
<p>Everything in the sandbox succeeds, except what these test PSUs and accounts make happen: the live service's failures, every time the same way.</p>
${table(
  ['trigger', 'as data (when)', 'what happens', 'as data (expected)'],
  each(
    data.scenarios,
    (row) =>
      html`<tr><td>${row.trigger}</td><td><code>${JSON.stringify(row.when)}</code></td><td>${row.outcome}</td><td><code>${JSON.stringify(row.expected)}</code></td></tr>`,
  ),
)}`;
}

export function renderSandboxPage(view: SandboxPageView): string {
  const { baseUrl, data } = view;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>psd2-gateway sandbox</title><style>${new Html(STYLE)}</style></head>
<body><main>
<h1>psd2-gateway sandbox</h1>
<p>The bank's PSD2 open-banking API (payment initiation, OAuth 2.0 redirect and decoupled authorization, account information, card accounts, funds confirmation) with the real service's paths, headers and bodies, on static test data. Every flow ends well: the redirect authorization answers the code at once, the decoupled one completes at the first poll, executions succeed; the scenarios below rehearse the failures.</p>
<div class="card"><dl class="facts">
<dt>Base URL</dt><dd><code data-field="base-url">${baseUrl}</code></dd>
<dt>client_id</dt><dd><code data-field="client-id">${data.app?.clientId ?? 'not seeded yet'}</code></dd>
<dt>Redirect URI</dt><dd><code data-field="redirect-uri">${data.app?.redirectUri ?? 'not seeded yet'}</code></dd>
<dt>Test PSUs' password</dt><dd><code data-field="password">${data.psuPassword}</code></dd>
<dt>As JSON</dt><dd><a href="${baseUrl}/sandbox/test-data">${baseUrl}/sandbox/test-data</a></dd>
<dt>Docs</dt><dd><a href="${baseUrl}/docs">${baseUrl}/docs</a> (every operation, to try out)</dd>
</dl></div>
<nav><a href="#try-it">Try it</a><a href="#psus">PSUs</a><a href="#accounts">Accounts</a><a href="#card-accounts">Cards</a><a href="#creditors">Creditors</a><a href="#scenarios">Scenarios</a></nav>
<h2 id="try-it">Try it with curl and jq</h2>
${walkthroughHtml(view.sections)}
${testDataHtml(data)}
</main><script>${new Html(SCRIPT)}</script></body></html>`.text;
}
