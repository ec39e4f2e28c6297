// psd2-gateway/client as another project uses it: a throwaway project whose node_modules/psd2-gateway is
// this repository (a symlink, as npm link makes it) type-checks a TypeScript file against the built
// declarations (nodenext and bundler resolution), and plain node imports the built module through the
// package's "exports" and walks the redirect flow against a sandbox. Skipped, saying so, when
// dist/client is not built (npm run build).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { domestic } from '../helpers/payments.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUILT = ['index.js', 'index.d.ts'].every((file) => existsSync(join(ROOT, 'dist/client', file)));
if (!BUILT) console.log('# client package tests skipped: dist/client is not built (npm run build)');
const skip = !BUILT;

const run = (args: string[], cwd: string) =>
  promisify(execFile)(process.execPath, args, { cwd, timeout: 60_000 }).then(
    (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
    (failed: { code: number; stdout: string; stderr: string }) => failed,
  );

let project: string;
before(async () => {
  if (skip) return;
  project = await mkdtemp(join(tmpdir(), 'psd2-client-consumer-'));
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module' }));
  await mkdir(join(project, 'node_modules'));
  await symlink(ROOT, join(project, 'node_modules/psd2-gateway'), 'dir');
});
after(async () => {
  if (project !== undefined) await rm(project, { recursive: true, force: true });
});

// Uses the client's types the way a TPP's code would; each @ts-expect-error fails the check if the
// declarations had lost their types (an `any` accepts everything, and an unused expectation is an error).
const CONSUMER_TS = `
import { TppClient, TppError, type HttpAnswer, type InitiationAnswer, type DecoupledPollAnswer } from 'psd2-gateway/client';

export async function pay(client: TppClient, body: unknown): Promise<string> {
  const token: string = await client.clientCredentialsToken();
  const answer: HttpAnswer<InitiationAnswer> = await client.initiate(token, { path: '/psd2/v1/payments/sepa-credit-transfer', country: 'SE', body });
  // @ts-expect-error paymentId is a string
  const wrong: number = answer.body.paymentId;
  void wrong;
  const tokens = await client.decoupled.authorize('PIS:' + answer.body.paymentId, { sleep: async () => {} });
  const executed = await client.execute('sepa-credit-transfer', answer.body.paymentId, tokens.access_token);
  return executed.body.transactionStatus;
}

export function codeOf(error: unknown): string | undefined {
  return error instanceof TppError ? \`\${error.status} \${error.code}\` : undefined;
}

export function tokenOf(poll: DecoupledPollAnswer): string | undefined {
  // @ts-expect-error access_token is known only once result is COMPLETE
  poll.access_token;
  return poll.result === 'COMPLETE' ? poll.access_token : undefined;
}

export async function accounts(client: TppClient, token: string) {
  const list = await client.accounts.list(token, { withBalance: true });
  // @ts-expect-error the option is a boolean
  await client.accounts.list(token, { withBalance: 'yes' });
  return list.body.accounts.map((account) => account.balances?.[0]?.amount.content);
}
`;

const TSCONFIG = (module: string, moduleResolution: string) => ({
  compilerOptions: {
    target: 'ES2022',
    module,
    moduleResolution,
    strict: true,
    noEmit: true,
    lib: ['ES2022', 'DOM'],
    types: [],
    skipLibCheck: false,
  },
  files: ['consumer.ts'],
});

test('a TypeScript project type-checks against psd2-gateway/client (nodenext and bundler)', {
  skip,
}, async () => {
  await writeFile(join(project, 'consumer.ts'), CONSUMER_TS);
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  for (const [module, resolution] of [
    ['NodeNext', 'NodeNext'],
    ['ESNext', 'Bundler'],
  ] as const) {
    const config = `tsconfig.${resolution.toLowerCase()}.json`;
    await writeFile(join(project, config), JSON.stringify(TSCONFIG(module, resolution)));
    const checked = await run([tsc, '-p', config], project);
    assert.deepEqual([checked.code, checked.stdout], [0, ''], `${resolution}: ${checked.stdout}`);
  }
});

// Plain node, no TypeScript: the redirect flow, a TppError, and the package's other entry points.
const CONSUMER_MJS = `
import { TppClient, TppError, expectOk } from 'psd2-gateway/client';
const [baseUrl, clientId, redirectUri, body] = process.argv.slice(2);
const client = new TppClient(baseUrl, clientId, redirectUri);
const product = 'handelsbanken-domestic-credit-transfer';
const token = await client.clientCredentialsToken();
const initiated = expectOk(await client.initiate(token, { path: '/psd2/se/v2/payments/private/single/' + product, body: JSON.parse(body) }), 'initiate');
const psu = await client.authorizeScope('PIS:' + initiated.paymentId);
const executed = await client.execute(product, initiated.paymentId, psu.access_token);
const status = await client.status(product, initiated.paymentId, token, 'SE');
const refused = await new TppClient(baseUrl, 'nobody', redirectUri).clientCredentialsToken().catch((error) => error);
const manifest = (await import('psd2-gateway/package.json', { with: { type: 'json' } })).default;
const deep = await import('psd2-gateway/dist/cli.js').then(() => 'imported', (error) => error.code);
console.log(JSON.stringify({
  initiated: initiated.transactionStatus,
  executed: [executed.status, executed.body],
  status: [status.status, status.body],
  refused: [refused instanceof TppError, refused.status, refused.code],
  manifest: manifest.name,
  deep,
}));
`;

test('plain node imports psd2-gateway/client and walks the redirect flow', { skip }, async () => {
  let gateway: Gateway | undefined;
  try {
    gateway = await startGateway();
    await writeFile(join(project, 'flow.mjs'), CONSUMER_MJS);
    const { clientId, redirectUri } = gateway.sandboxApp;
    const ran = await run(
      ['flow.mjs', gateway.url, clientId, redirectUri, JSON.stringify(domestic())],
      project,
    );
    assert.equal(ran.code, 0, ran.stderr);
    const result = JSON.parse(ran.stdout) as { executed: [number, { paymentId: string }] };
    const paymentId = result.executed[1].paymentId;
    assert.deepEqual(result, {
      initiated: 'ACTC',
      executed: [200, { paymentId, transactionStatus: 'ACCC' }],
      status: [200, { paymentId, transactionStatus: 'ACCC' }],
      refused: [true, 401, 'invalid_client'],
      manifest: 'psd2-gateway',
      deep: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
    });
  } finally {
    await gateway?.close();
  }
});

test('the built client imports nothing: fetch and Web Crypto only, for any runtime', { skip }, async () => {
  const bundle = await readFile(join(ROOT, 'dist/client/index.js'), 'utf8');
  assert.deepEqual(bundle.match(/^\s*import\b.*$/gm), null);
  assert.equal(/\brequire\(|node:/.test(bundle), false);
  // Declarations name their neighbours as .js, as every TypeScript version and editor resolves them.
  const index = await readFile(join(ROOT, 'dist/client/index.d.ts'), 'utf8');
  assert.deepEqual(index.match(/from '[^']+\.ts'/g), null);
  assert.match(index, /from '\.\/tpp-client\.js'/);
});
