// psd2-gateway demo: walks the flows of the contract through the typed client against a sandbox (one
// started here, in memory, unless --base-url names a running one), printing every step, and exits 1 at
// the first failure with one line saying where and why. The demo never imports the server: the gateway's
// CLI gives it the function that starts one, called only when no --base-url is given.

import { type SandboxTestData, TppClient } from '@psd2-gateway/client';
import { type Command, oneOf, parseOptions, UsageError } from './cli-args.ts';
import { FLOW_NAMES, FLOWS, type FlowName } from './flows.ts';
import { demoAccounts } from './steps.ts';
import { Walk } from './walk.ts';

export const USAGE = `usage: psd2-gateway demo [--base-url URL] [--flow redirect|decoupled|basket|ais|notified|all]
                         [--client-id ID --redirect-uri URI]

Walks the flows of the contract through the typed client (psd2-gateway/client) and prints each step:
the request (method and path), the status, the fields that matter, and the total time at the end.
Exits 1 at the first failure, saying which step failed and why.

  --base-url URL       a running sandbox, e.g. http://localhost:3000; without it, a sandbox started
                       here (in memory, on a free port of 127.0.0.1) and stopped at the end
  --flow NAME          redirect | decoupled | basket | ais | notified | all (default all; all leaves
                       notified out when the sandbox is not on this machine)
  --client-id ID       the sandbox app's client_id, and
  --redirect-uri URI   its redirect URI (default: the app GET /sandbox/test-data names)

flows:
  redirect   PIS token, initiate a domestic payment, authorize (302 with a code), exchange the code,
             execute, status
  decoupled  the same payment authorized in the e-ID app: start, poll sleep_time apart until COMPLETE
  basket     a signing basket of two payments: initiate, authorize the basket, execute it, each status
  ais        AIS token, consent, authorize it, read it, accounts, one account, balances, transactions,
             delete the consent
  notified   the redirect flow's payment with TPP-Notification-URI: a receiver on 127.0.0.1 takes its
             status notifications and verifies each signature against /.well-known/jwks.json; then
             GET /psd2/v1/notifications`;

const OPTIONS = {
  'base-url': { type: 'string' },
  flow: { type: 'string' },
  'client-id': { type: 'string' },
  'redirect-uri': { type: 'string' },
} as const;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

interface DemoOptions {
  readonly baseUrl: string | undefined;
  readonly flows: readonly FlowName[];
  readonly clientId: string | undefined;
  readonly redirectUri: string | undefined;
}

/** A sandbox to walk: where it is, and how to stop it if we started it. */
export interface Target {
  readonly url: string;
  readonly close: () => Promise<void>;
}

/** What the demo needs of the gateway: a sandbox in this process, for a run without --base-url. */
export interface DemoHost {
  readonly startSandbox: () => Promise<Target>;
}

/** `psd2-gateway demo`, with the host that starts a sandbox when no --base-url is given. */
export function demoCommand(host: DemoHost): Command {
  return {
    summary: 'walk the flows (redirect, decoupled, basket, account information) against a sandbox',
    usage: USAGE,
    async run(args) {
      const options = demoOptions(args);
      const started = performance.now();
      const target = options.baseUrl === undefined ? await host.startSandbox() : given(options.baseUrl);
      try {
        return await walkFlows(options, target, started);
      } finally {
        await target.close();
      }
    },
  };
}

function demoOptions(args: readonly string[]): DemoOptions {
  const { values } = parseOptions(args, OPTIONS);
  const flow = oneOf(values.flow, 'flow', [...FLOW_NAMES, 'all'], 'all');
  const baseUrl = values['base-url'];
  if (baseUrl !== undefined && !/^https?:\/\/[^/]/.test(baseUrl)) {
    throw new UsageError('--base-url must be an http:// or https:// URL');
  }
  // The notified flow's receiver listens on this machine's loopback: a sandbox elsewhere cannot reach it.
  const reachable = baseUrl === undefined || LOOPBACK.has(new URL(baseUrl).hostname);
  if ((values['client-id'] === undefined) !== (values['redirect-uri'] === undefined)) {
    throw new UsageError('--client-id and --redirect-uri go together');
  }
  return {
    baseUrl: baseUrl?.replace(/\/+$/, ''),
    flows: flow === 'all' ? FLOW_NAMES.filter((name) => reachable || name !== 'notified') : [flow],
    clientId: values['client-id'],
    redirectUri: values['redirect-uri'],
  };
}

function given(url: string): Target {
  return { url, close: async () => {} };
}

/** Every flow in turn; the exit code. */
async function walkFlows(options: DemoOptions, target: Target, started: number): Promise<number> {
  const write = (line: string) => process.stdout.write(`${line}\n`);
  const total = 1 + options.flows.reduce((sum, name) => sum + FLOWS[name].steps, 0);
  const walk = new Walk(total, write);
  write(
    `psd2-gateway demo: ${options.flows.join(', ')} against ${target.url}` +
      (options.baseUrl === undefined ? ' (a sandbox started here, in memory)' : ''),
  );
  try {
    walk.heading('test data: the sandbox app, and the accounts to pay from and to');
    const data = await walk.call(
      () => new TppClient(target.url, '', '').sandboxTestData(),
      200,
      (body) => `${body.psus.length} PSUs${body.app === undefined ? '' : `, app ${body.app.clientId}`}`,
    );
    const client = clientFor(options, target.url, data.body);
    const accounts = demoAccounts(data.body);
    for (const name of options.flows) {
      walk.heading(FLOWS[name].title);
      await FLOWS[name].run({ client, walk, accounts });
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const reason = (error as Error).message.split('\n')[0];
    process.stderr.write(`psd2-gateway demo: step ${walk.current} failed: ${reason}\n`);
    return 1;
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const flows = `${options.flows.length} flow${options.flows.length === 1 ? '' : 's'}`;
  write(`\nall passed: ${flows}, ${total} steps in ${seconds} s`);
  return 0;
}

/** The client of the sandbox app: the one given in the options, else the one the sandbox's test data names. */
function clientFor(options: DemoOptions, url: string, data: SandboxTestData): TppClient {
  if (options.clientId !== undefined && options.redirectUri !== undefined) {
    return new TppClient(url, options.clientId, options.redirectUri);
  }
  if (data.app !== undefined) return new TppClient(url, data.app.clientId, data.app.redirectUri);
  throw new UsageError(`${url}/sandbox/test-data names no sandbox app: give --client-id and --redirect-uri`);
}
