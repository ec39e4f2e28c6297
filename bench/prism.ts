// Prism (Stoplight) as the peer of the gateway's initiation: `prism mock --errors`, which validates
// each request against an OpenAPI document (headers, security, body) and answers the document's
// example, storing nothing. Its document is the Berlin Group NextGenPSD2 1.3.11 specification when
// BENCH_PRISM_SPEC names that file; otherwise the gateway's own document (GET /openapi.json of the
// gateway under test), which describes the very initiation the gateway serves, so Prism validates the
// same requests against the same contract. Runs when the `prism` command is there (node_modules/.bin or
// PATH); absent, the bench says so and goes on.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from '../test/helpers/serve-process.ts';
import type { LoadRequest } from './load-process.ts';

export const PRISM_INSTALL = 'npm i -g @stoplight/prism-cli';

/** Which document Prism mocks: the Berlin Group specification's file, or the gateway's own. */
export type PrismDocument =
  | { readonly kind: 'berlin-group'; readonly file: string }
  | { readonly kind: 'gateway'; readonly file?: undefined };

export type PrismAvailability =
  | { readonly available: true; readonly command: string; readonly document: PrismDocument }
  | { readonly available: false; readonly reason: string };

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
  if (command === undefined) return { available: false, reason: `Prism: not installed (${PRISM_INSTALL})` };
  const spec = process.env.BENCH_PRISM_SPEC;
  if (spec !== undefined && spec !== '') {
    if (!existsSync(spec))
      return { available: false, reason: `Prism: BENCH_PRISM_SPEC names no file (${spec})` };
    return { available: true, command, document: { kind: 'berlin-group', file: spec } };
  }
  return { available: true, command, document: { kind: 'gateway' } };
}

/** What the bench says of Prism and what the figure's baseline is called. */
export function prismDescription(availability: PrismAvailability): string {
  if (!availability.available) return availability.reason;
  return availability.document.kind === 'berlin-group'
    ? `Prism: ${availability.command} on the Berlin Group specification (${availability.document.file})`
    : `Prism: ${availability.command} on the gateway's own OpenAPI document (no BENCH_PRISM_SPEC)`;
}

export function prismBaseline(document: PrismDocument): string {
  return document.kind === 'berlin-group' ? 'Prism (Berlin Group 1.3.11)' : "Prism (the gateway's document)";
}

export interface PrismPeer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * `prism mock --errors` on the document, listening on a free loopback port. The gateway's own document is
 * read from `gatewayUrl` into a temporary file first.
 */
export async function startPrism(
  command: string,
  document: PrismDocument,
  gatewayUrl: string,
): Promise<PrismPeer> {
  let spec = document.file;
  let scratch: string | undefined;
  if (spec === undefined) {
    const response = await fetch(`${gatewayUrl}/openapi.json`);
    if (!response.ok) throw new Error(`the gateway's /openapi.json answered ${response.status}`);
    scratch = mkdtempSync(join(tmpdir(), 'psd2-prism-'));
    spec = join(scratch, 'openapi.json');
    writeFileSync(spec, await response.text());
  }
  const port = await freePort();
  const child: ChildProcess = spawn(
    command,
    ['mock', '-h', '127.0.0.1', '-p', String(port), '--errors', spec],
    {
      stdio: 'ignore',
    },
  );
  const removeScratch = () => {
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  const begin = Date.now();
  for (;;) {
    if (Date.now() - begin > 60_000) {
      child.kill('SIGTERM');
      removeScratch();
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
      removeScratch();
    },
  };
}

/** A SEPA credit transfer initiation of the Berlin Group specification (its own paths and headers). */
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
