// @psd2-gateway/client as another project gets it: packed with npm (its prepack builds it), under 100 KB,
// with no dependency, installed offline from the tarball into a throwaway project, type-checked there
// against its declarations (nodenext and bundler resolution), and run by plain node through a payment
// (token, initiate, authorize, execute, status) against a sandbox; the package README's example too.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { domestic } from '../helpers/payments.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGE = join(ROOT, 'packages/client');
const MAX_PACKED_BYTES = 100 * 1024;
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

const run = (file: string, args: string[], cwd: string): Promise<Ran> =>
  promisify(execFile)(file, args, { cwd, timeout: 120_000 }).then(
    (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
    (failed: Ran) => failed,
  );

interface Packed {
  filename: string;
  size: number;
  files: { path: string }[];
}

let temp: string;
let project: string;
let packed: Packed;
before(async () => {
  temp = await mkdtemp(join(tmpdir(), 'psd2-client-package-'));
  const pack = await run(NPM, ['pack', '--json', '--pack-destination', temp], PACKAGE);
  assert.equal(pack.code, 0, pack.stderr);
  packed = (JSON.parse(pack.stdout) as Packed[])[0]!;
  project = join(temp, 'consumer');
  await run(process.execPath, ['-e', `require('fs').mkdirSync(${JSON.stringify(project)})`], temp);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module' }));
  const install = await run(
    NPM,
    ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', join(temp, packed.filename)],
    project,
  );
  assert.equal(install.code, 0, install.stderr);
});
after(async () => {
  if (temp !== undefined) await rm(temp, { recursive: true, force: true });
});

test('the tarball: under 100 KB, the built module, its declarations and the README, nothing else', () => {
  assert.ok(packed.size < MAX_PACKED_BYTES, `${packed.size} bytes packed`);
  const paths = packed.files.map((file) => file.path).sort();
  assert.deepEqual(
    paths.filter((path) => !/^dist\/(generated\/)?[a-z-]+\.d\.ts$/.test(path)),
    ['README.md', 'dist/index.js', 'package.json'],
  );
  for (const declarations of ['dist/index.d.ts', 'dist/generated/openapi.d.ts']) {
    assert.ok(paths.includes(declarations), `the tarball holds ${declarations}: ${paths.join(', ')}`);
  }
});

test('the installed manifest: public, MIT, ESM with types, no dependency of any kind', async () => {
  const manifest = JSON.parse(
    await readFile(join(project, 'node_modules/@psd2-gateway/client/package.json'), 'utf8'),
  );
  const { name, version, license, type, exports, private: isPrivate } = manifest;
  assert.deepEqual(
    { name, version, license, type, exports, isPrivate },
    {
      name: '@psd2-gateway/client',
      version: '0.1.0',
      license: 'MIT',
      type: 'module',
      exports: {
        '.': { types: './dist/index.d.ts', default: './dist/index.js' },
        './package.json': './package.json',
      },
      isPrivate: undefined,
    },
  );
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies']) {
    assert.equal(manifest[field], undefined, field);
  }
  // What npm installed: the package alone (the gateway's pulled 112 packages).
  const lock = JSON.parse(await readFile(join(project, 'package-lock.json'), 'utf8'));
  assert.deepEqual(Object.keys(lock.packages).sort(), ['', 'node_modules/@psd2-gateway/client']);
});

test('the built module imports nothing: fetch and Web Crypto only, for any runtime', async () => {
  const bundle = await readFile(join(project, 'node_modules/@psd2-gateway/client/dist/index.js'), 'utf8');
  assert.deepEqual(bundle.match(/^\s*import\b.*$/gm), null);
  assert.equal(/\brequire\(|node:|process\./.test(bundle), false);
  // Declarations name their neighbours as .js, as every TypeScript version and editor resolves them.
  const index = await readFile(join(project, 'node_modules/@psd2-gateway/client/dist/index.d.ts'), 'utf8');
  assert.deepEqual(index.match(/from '[^']+\.ts'/g), null);
  assert.match(index, /from '\.\/tpp-client\.js'/);
});

// Uses the client's types the way a TPP's code would; each @ts-expect-error fails the check if the
// declarations had lost their types (an `any` accepts everything, and an unused expectation is an error).
const CONSUMER_TS = `
import { TppClient, TppError, type AnswerOf, type HttpAnswer, type InitiationAnswer, type DecoupledPollAnswer } from '@psd2-gateway/client';

export async function pay(client: TppClient): Promise<string> {
  const token: string = await client.clientCredentialsToken();
  const body = { debtorAccount: { value: 'DE1', accountType: 'IBAN' }, creditorAccount: { value: 'DE2', accountType: 'IBAN' }, instructedAmount: { currency: 'EUR', amount: '1.00' } };
  const answer: HttpAnswer<InitiationAnswer> = await client.initiate(token, { path: '/psd2/v1/payments/sepa-credit-transfer', country: 'SE', body, idempotencyKey: 'k-1' });
  // @ts-expect-error paymentId is a string
  const wrong: number = answer.body.paymentId;
  void wrong;
  // @ts-expect-error a request body is typed: instructedAmount is required
  await client.initiate(token, { path: '/psd2/v1/payments/sepa-credit-transfer', body: { debtorAccount: body.debtorAccount, creditorAccount: body.creditorAccount } });
  const tokens = await client.decoupled.authorize('PIS:' + answer.body.paymentId, { sleep: async () => {} });
  const executed = await client.execute('sepa-credit-transfer', answer.body.paymentId, tokens.access_token);
  const status: AnswerOf<'getPaymentStatus'> = (await client.status('sepa-credit-transfer', answer.body.paymentId, token, 'SE')).body;
  return executed.body.transactionStatus + status.transactionStatus;
}

export function codeOf(error: unknown): string | undefined {
  return error instanceof TppError ? \`\${error.status} \${error.code}\` : undefined;
}

export function tokenOf(poll: DecoupledPollAnswer): string | undefined {
  // @ts-expect-error access_token is certain only once result is COMPLETE
  const before: string = poll.access_token;
  void before;
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

test('a TypeScript project type-checks against the installed package (nodenext and bundler)', async () => {
  await writeFile(join(project, 'consumer.ts'), CONSUMER_TS);
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  for (const [module, resolution] of [
    ['NodeNext', 'NodeNext'],
    ['ESNext', 'Bundler'],
  ] as const) {
    const config = `tsconfig.${resolution.toLowerCase()}.json`;
    await writeFile(join(project, config), JSON.stringify(TSCONFIG(module, resolution)));
    const checked = await run(process.execPath, [tsc, '-p', config], project);
    assert.deepEqual([checked.code, checked.stdout], [0, ''], `${resolution}: ${checked.stdout}`);
  }
});

// Plain node, no TypeScript: a payment from token to status, a TppError, and what the package exports.
const CONSUMER_MJS = `
import { TppClient, TppError, expectOk } from '@psd2-gateway/client';
const [baseUrl, clientId, redirectUri, body] = process.argv.slice(2);
const client = new TppClient(baseUrl, clientId, redirectUri);
const product = 'handelsbanken-domestic-credit-transfer';
const token = await client.clientCredentialsToken();
const path = '/psd2/se/v2/payments/private/single/' + product;
const answer = await client.initiate(token, { path, body: JSON.parse(body), idempotencyKey: crypto.randomUUID() });
const initiated = expectOk(answer, 'initiate');
const psu = await client.authorizeScope('PIS:' + initiated.paymentId);
const executed = await client.execute(product, initiated.paymentId, psu.access_token);
const status = await client.status(product, initiated.paymentId, token, 'SE');
const refused = await new TppClient(baseUrl, 'nobody', redirectUri).clientCredentialsToken().catch((error) => error);
const manifest = (await import('@psd2-gateway/client/package.json', { with: { type: 'json' } })).default;
const deep = await import('@psd2-gateway/client/dist/index.js').then(() => 'imported', (error) => error.code);
console.log(JSON.stringify({
  initiated: [answer.status, initiated.transactionStatus],
  executed: [executed.status, executed.body],
  status: [status.status, status.body],
  refused: [refused instanceof TppError, refused.status, refused.code],
  manifest: manifest.name,
  deep,
}));
`;

let gateway: Gateway | undefined;
after(() => gateway?.close());

test('plain node walks a payment with the installed package: token, initiate, authorize, execute, status', async () => {
  gateway ??= await startGateway();
  await writeFile(join(project, 'flow.mjs'), CONSUMER_MJS);
  const { clientId, redirectUri } = gateway.sandboxApp;
  const ran = await run(
    process.execPath,
    ['flow.mjs', gateway.url, clientId, redirectUri, JSON.stringify(domestic())],
    project,
  );
  assert.equal(ran.code, 0, ran.stderr);
  const result = JSON.parse(ran.stdout) as { executed: [number, { paymentId: string }] };
  const paymentId = result.executed[1].paymentId;
  assert.deepEqual(result, {
    initiated: [200, 'ACTC'],
    executed: [200, { paymentId, transactionStatus: 'ACCC' }],
    status: [200, { paymentId, transactionStatus: 'ACCC' }],
    refused: [true, 401, 'invalid_client'],
    manifest: '@psd2-gateway/client',
    deep: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
  });
});

test("the package README's example runs as shown against the sandbox", async () => {
  gateway ??= await startGateway();
  const readme = await readFile(join(PACKAGE, 'README.md'), 'utf8');
  const example = /```js\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  assert.ok(example.includes("'http://localhost:3000'"), 'the README has a js example for the sandbox');
  await writeFile(
    join(project, 'readme.mjs'),
    example.replace("'http://localhost:3000'", `'${gateway.url}'`),
  );
  const ran = await run(process.execPath, ['readme.mjs'], project);
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(ran.stdout, 'ACCC ACCC\n');
});
