// Prism (Stoplight) mocking the Berlin Group NextGenPSD2 1.3.11 specification, as the peer of the
// gateway's initiation: validation on (--errors), nothing stored. Runs only when both are there: the
// `prism` command (node_modules/.bin or PATH) and the specification's OpenAPI file at BENCH_PRISM_SPEC.
// Absent, the bench says so and goes on.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { freePort } from '../test/helpers/serve-process.ts';
import type { LoadRequest } from './load-process.ts';

export const PRISM_INSTALL =
  'npm i -g @stoplight/prism-cli; the Berlin Group NextGenPSD2 1.3.11 OpenAPI file (psd2-api 1.3.11, YAML) from https://www.berlin-group.org/nextgenpsd2-downloads, its path in BENCH_PRISM_SPEC';

export type PrismAvailability =
  | { readonly available: true; readonly command: string; readonly spec: string }
  | {
      readonly available: false;
      readonly reason: string;
    };

function findCommand(): string | undefined {
  const local = join('node_modules', '.bin', 'prism');
  if (existsSync(local)) return local;
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(directory, 'prism');
    if (directory !== '' && existsSync(candidate)) return candidate;
  }
  return undefined;
}

export function prismAvailability(): PrismAvailability {
  const command = findCommand();
  const spec = process.env.BENCH_PRISM_SPEC;
  if (command === undefined) return { available: false, reason: `Prism: not installed (${PRISM_INSTALL})` };
  if (spec === undefined || !existsSync(spec))
    return {
      available: false,
      reason: `Prism: installed, but no specification (BENCH_PRISM_SPEC: the Berlin Group NextGenPSD2 1.3.11 OpenAPI file from https://www.berlin-group.org/nextgenpsd2-downloads)`,
    };
  return { available: true, command, spec };
}

export interface PrismPeer {
  readonly url: string;
  close(): Promise<void>;
}

/** `prism mock --errors` on the specification, listening on a free loopback port. */
export async function startPrism(command: string, spec: string): Promise<PrismPeer> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    command,
    ['mock', '-h', '127.0.0.1', '-p', String(port), '--errors', spec],
    {
      stdio: 'ignore',
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const begin = Date.now();
  for (;;) {
    if (Date.now() - begin > 60_000) {
      child.kill('SIGTERM');
      throw new Error('Prism did not start in 60 s');
    }
    try {
      await fetch(`${url}/v1/payments/sepa-credit-transfers/x/status`);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return {
    url,
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A SEPA credit transfer initiation of the Berlin Group specification. */
export function prismRequests(): LoadRequest[] {
  return [
    {
      method: 'POST',
      path: '/v1/payments/sepa-credit-transfers',
      headers: {
        'content-type': 'application/json',
        'X-Request-ID': randomUUID(),
        'PSU-IP-Address': '192.0.2.1',
        'TPP-Redirect-URI': 'https://tpp.example/cb',
      },
      body: JSON.stringify({
        instructedAmount: { currency: 'EUR', amount: '123.50' },
        debtorAccount: { iban: 'DE40100100103307118608' },
        creditorName: 'Merchant123',
        creditorAccount: { iban: 'DE02100100109307118603' },
        remittanceInformationUnstructured: 'Ref Number Merchant',
      }),
    },
  ];
}
