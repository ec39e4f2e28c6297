// The CLI's manners: --help on every command (never starting a server or touching a database),
// --version, a one-line error and exit code 2 for an unknown command or option, and cert saying what it
// wrote. Runs the built CLI (bin/psd2-gateway.mjs) when dist/ is built, else the sources through tsx.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

const BUILT = existsSync(new URL('../../dist/cli.js', import.meta.url));
const ENTRY = BUILT ? ['bin/psd2-gateway.mjs'] : ['--import', 'tsx', 'src/cli/index.ts'];
const COMMANDS = ['serve', 'migrate', 'snapshot', 'cert', 'tpp', 'demo', 'check'];
/** Were a command to run, it would fail on this database: exit code 0 shows it did not. */
const NO_DATABASE = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', PORT: '0' };

function cli(args: string[], env: Record<string, string> = {}) {
  return promisify(execFile)(process.execPath, [...ENTRY, ...args], {
    env: { ...process.env, ...NO_DATABASE, ...env },
    timeout: 30_000,
  }).then(
    (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
    (failed: { code: number; stdout: string; stderr: string }) => failed,
  );
}

test('psd2-gateway --help and help name every command', async () => {
  for (const args of [['--help'], ['-h'], ['help']]) {
    const answer = await cli(args);
    assert.equal(answer.code, 0, args.join(' '));
    assert.equal(answer.stderr, '');
    assert.match(answer.stdout, /^usage: psd2-gateway <command> \[options\]\n/);
    for (const command of [...COMMANDS, 'help'])
      assert.match(answer.stdout, new RegExp(`\\n  ${command} +\\S`));
    assert.match(answer.stdout, /--version/);
  }
});

test('every command answers --help with its own usage, and runs nothing', async () => {
  for (const command of COMMANDS) {
    for (const args of [
      [command, '--help'],
      [command, '-h'],
      ['help', command],
    ]) {
      const answer = await cli(args);
      assert.deepEqual(
        [
          answer.code,
          answer.stderr,
          answer.stdout.split('\n')[0]?.startsWith(`usage: psd2-gateway ${command}`),
        ],
        [0, '', true],
        `${args.join(' ')}: ${answer.stdout}${answer.stderr}`,
      );
    }
  }
});

test('--version prints the version of package.json', async () => {
  const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
  const answer = await cli(['--version']);
  assert.deepEqual(
    [answer.code, answer.stdout, answer.stderr],
    [0, `psd2-gateway ${manifest.version}\n`, ''],
  );
});

test('an unknown command or option is one line on stderr and exit code 2', async () => {
  const cases: [string[], string][] = [
    [['launch'], 'psd2-gateway: unknown command launch (psd2-gateway help)'],
    [['serve', '--port', '3000'], 'psd2-gateway serve: unknown option --port (psd2-gateway serve --help)'],
    [['migrate', 'now'], 'psd2-gateway migrate: unexpected argument now (psd2-gateway migrate --help)'],
    [['snapshot', '--force'], 'psd2-gateway snapshot: unknown option --force (psd2-gateway snapshot --help)'],
    [
      ['cert', 'ca', '--outdir', 'x'],
      'psd2-gateway cert: unknown option --outdir (psd2-gateway cert --help)',
    ],
    [
      ['cert', 'key'],
      'psd2-gateway cert: cannot make key: ca, server, qwac or crl (psd2-gateway cert --help)',
    ],
    [
      ['cert', 'ca', '--out', 'x', '--name', ''],
      'psd2-gateway cert: --name must be 1 to 64 printable characters (psd2-gateway cert --help)',
    ],
    [
      ['cert', 'ca', '--out', 'x', '--name', 'x'.repeat(65)],
      'psd2-gateway cert: --name must be 1 to 64 printable characters (psd2-gateway cert --help)',
    ],
    [['demo', '--bogus'], 'psd2-gateway demo: unknown option --bogus (psd2-gateway demo --help)'],
    [
      ['demo', '--flow', 'sideways'],
      'psd2-gateway demo: --flow must be one of redirect, decoupled, basket, ais, notified, all (psd2-gateway demo --help)',
    ],
    [
      ['check', '--base-url'],
      "psd2-gateway check: option '--base-url <value>' argument missing (psd2-gateway check --help)",
    ],
    [['help', 'nothing'], ''],
  ];
  for (const [args, line] of cases) {
    const answer = await cli(args);
    assert.equal(answer.code, 2, args.join(' '));
    if (line === '') continue;
    assert.deepEqual([answer.stdout, answer.stderr], ['', `${line}\n`], args.join(' '));
  }
});

test('cert says what it wrote', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'psd2-cli-cert-'));
  try {
    const ca = await cli(['cert', 'ca', '--out', dir]);
    assert.deepEqual([ca.code, ca.stdout], [0, `wrote ${join(dir, 'ca.pem')} and ${join(dir, 'ca.key')}\n`]);
    const server = await cli(['cert', 'server', '--ca', dir, '--out', dir]);
    assert.deepEqual(
      [server.code, server.stdout],
      [0, `wrote ${join(dir, 'server.pem')} and ${join(dir, 'server.key')}\n`],
    );
    const qwac = await cli([
      'cert',
      'qwac',
      '--ca',
      dir,
      '--out',
      dir,
      '--org',
      'PSDSE-FINA-44059',
      '--name',
      'Budget Buddy AB',
      '--roles',
      'PSP_PI',
    ]);
    assert.equal(qwac.code, 0);
    assert.match(
      qwac.stdout,
      new RegExp(`^wrote ${join(dir, 'qwac.pem')} and ${join(dir, 'qwac.key')}\\nserial [0-9a-f]+\\n$`),
    );
    const serial = /serial ([0-9a-f]+)/.exec(qwac.stdout)![1]!;
    const crl = await cli([
      'cert',
      'crl',
      '--ca',
      dir,
      '--revoke',
      serial,
      '--out',
      join(dir, 'revoked.crl'),
    ]);
    assert.deepEqual([crl.code, crl.stdout], [0, `wrote ${join(dir, 'revoked.crl')}\n`]);
    assert.match(await readFile(join(dir, 'revoked.crl'), 'utf8'), /^-----BEGIN X509 CRL-----/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('cert ca --name names the CA, and what it issues names it as issuer; without, the default name', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'psd2-cli-cert-'));
  const named = join(dir, 'named');
  try {
    const ca = await cli(['cert', 'ca', '--out', named, '--name', 'Second test CA, Elsewhere']);
    assert.deepEqual(
      [ca.code, ca.stdout, ca.stderr],
      [0, `wrote ${join(named, 'ca.pem')} and ${join(named, 'ca.key')}\n`, ''],
    );
    // Node prints the comma escaped: it is one common name, not two attributes.
    const subject = 'CN=Second test CA\\, Elsewhere\nO=psd2-gateway\nC=SE';
    const certificate = new X509Certificate(await readFile(join(named, 'ca.pem'), 'utf8'));
    assert.deepEqual([certificate.subject, certificate.issuer], [subject, subject]);
    const server = await cli(['cert', 'server', '--ca', named, '--out', named]);
    assert.equal(server.code, 0);
    const issued = new X509Certificate(await readFile(join(named, 'server.pem'), 'utf8'));
    assert.equal(issued.issuer, subject);
    assert.ok(issued.verify(certificate.publicKey), 'the named CA signed the server certificate');
    assert.equal((await cli(['cert', 'ca', '--out', dir])).code, 0);
    assert.equal(
      new X509Certificate(await readFile(join(dir, 'ca.pem'), 'utf8')).subject,
      'CN=psd2-gateway test CA\nO=psd2-gateway\nC=SE',
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
