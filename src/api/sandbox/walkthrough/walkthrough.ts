// The sandbox walkthrough: every step of the flows as a curl + jq command that runs as shown, with
// the real base URL, the sandbox app and accounts of the test data. Made only from what
// GET /sandbox/test-data lists, so that the sandbox page, the README and a test share one text.
import type { SandboxTestData } from '../schemas.ts';
import { accountsSection, fundsSection } from './accounts.ts';
import { CURL, shellQuote } from './commands.ts';
import { examplesOf, type WalkthroughSection } from './examples.ts';
import { notificationsSection } from './notifications.ts';
import { decoupledSection, paymentSection } from './payments.ts';

export type { WalkthroughSection } from './examples.ts';

/** The sections in the order to run them; none before the sandbox app is seeded. */
export function walkthrough(baseUrl: string, data: SandboxTestData): WalkthroughSection[] {
  if (data.app === undefined) return [];
  const setup = setupSection(baseUrl, data.app);
  const examples = examplesOf(data);
  if (examples === undefined) return [setup];
  return [
    setup,
    paymentSection(examples),
    decoupledSection(examples),
    accountsSection(examples),
    fundsSection(examples),
    notificationsSection(examples),
    startOver,
  ];
}

function setupSection(baseUrl: string, app: { clientId: string; redirectUri: string }): WalkthroughSection {
  return {
    id: 'setup',
    title: 'Before you start',
    text: 'Every command below uses these variables (bash or zsh, with curl and jq). RUN makes each TPP-Request-ID unique to this run: a repeated one gets the first answer again.',
    steps: [
      {
        id: 'variables',
        title: 'The sandbox and its app',
        text: "The base URL, the sandbox app's client_id and its one redirect URI.",
        command: [
          `BASE=${shellQuote(baseUrl)}`,
          `CLIENT_ID=${shellQuote(app.clientId)}`,
          `REDIRECT_URI=${shellQuote(app.redirectUri)}`,
          'RUN=$(date +%s)$RANDOM',
        ].join('\n'),
      },
    ],
  };
}

const startOver: WalkthroughSection = {
  id: 'start-over',
  title: 'Start over',
  text: 'Restores the test data and removes every payment, consent and PSU token; the app and its client token stay.',
  steps: [
    {
      id: 'reset',
      title: 'Reset the sandbox',
      text: 'POST /sandbox/reset',
      command: `${CURL} -X POST "$BASE/sandbox/reset" | jq .`,
    },
  ],
};
