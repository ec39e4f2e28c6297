// The README's walkthroughs run as written: every shell block is marked (run, server or skip), none
// holds a placeholder, and the run blocks go in order through one bash session against a fresh sandbox
// (BASE); the server block starts the live gateway in the background (PORT=0) and the blocks after it
// reach it at LIVE. Skipped, saying so, without bash, curl 7.76+ (--fail-with-body) or jq, or without
// dist/ (npx psd2-gateway and npm start run the build).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { type Gateway, startGateway } from '../helpers/gateway.ts';

const README = new URL('../../README.md', import.meta.url);
const ROOT = new URL('../../', import.meta.url).pathname;

interface Block {
  readonly line: number;
  readonly marker: string | undefined;
  readonly code: string;
}

/** The README's ```sh blocks, each with the `<!-- readme-test: … -->` marker just above it. */
function shellBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    if (lines[index] !== '```sh') continue;
    const end = lines.indexOf('```', index + 1);
    const above = /^<!-- readme-test: (\w+)/.exec(lines[index - 1] ?? '')?.[1];
    blocks.push({ line: index + 1, marker: above, code: lines.slice(index + 1, end).join('\n') });
    index = end;
  }
  return blocks;
}

function missingTools(): string | false {
  const has = (command: string, args: string[], pattern: RegExp) => {
    try {
      return pattern.test(
        execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
      );
    } catch {
      return false;
    }
  };
  const reasons = [
    has('bash', ['--version'], /bash/) ? undefined : 'bash',
    has('jq', ['--version'], /jq/) ? undefined : 'jq',
    has('curl', ['--help', 'all'], /--fail-with-body/) ? undefined : 'curl 7.76+',
    existsSync(new URL('dist/cli.js', `file://${ROOT}`)) ? undefined : 'dist/ (npm run build)',
  ].filter((reason) => reason !== undefined);
  if (reasons.length === 0) return false;
  const reason = `README walkthrough skipped: ${reasons.join(', ')} missing`;
  console.log(`# ${reason}`);
  return reason;
}

/** The session: the run blocks as they are, the server block in the background until LIVE answers. */
function session(blocks: readonly Block[]): string {
  const parts = ['set -euo pipefail', 'SERVER_LOG=$(mktemp)'];
  for (const block of blocks) {
    parts.push(`echo '### README line ${block.line}'`);
    if (block.marker === 'run') parts.push(block.code);
    if (block.marker === 'server') {
      parts.push(
        `( ${block.code.replace(/\\\n\s*/g, '')} ) > "$SERVER_LOG" 2>&1 &`,
        // At most 60 s for the live gateway to say where it listens.
        'for _ in $(seq 600); do grep -q "psd2-gateway ready at" "$SERVER_LOG" && break; sleep 0.1; done',
        'LIVE=$(grep -o "psd2-gateway ready at https://[^ \\"]*" "$SERVER_LOG" | sed "s/.* at //")',
        'test -n "$LIVE" || { cat "$SERVER_LOG"; exit 1; }',
      );
    }
  }
  return parts.join('\n');
}

const skip = missingTools();

describe('the README walkthroughs', { skip }, () => {
  let gateway: Gateway;
  let blocks: Block[];
  before(async () => {
    gateway = await startGateway();
    blocks = shellBlocks(await readFile(README, 'utf8'));
  });
  after(() => gateway?.close());

  test('every shell block is marked, and none holds a placeholder', () => {
    assert.deepEqual(
      blocks
        .filter((block) => !['run', 'server', 'skip'].includes(block.marker ?? ''))
        .map((block) => block.line),
      [],
    );
    const placeholders = blocks.filter(
      (block) => block.marker !== 'skip' && /\.\.\.|…|<[a-z_]+>/.test(block.code),
    );
    assert.deepEqual(
      placeholders.map((block) => block.line),
      [],
    );
    assert.equal(blocks.filter((block) => block.marker === 'server').length, 1);
  });

  test('the blocks run in order, as written, against a fresh sandbox and a live gateway', async () => {
    const script = session(blocks);
    const child = spawn('bash', ['-c', script], {
      cwd: ROOT,
      env: { ...process.env, BASE: gateway.url, PORT: '0', LOG_LEVEL: 'info' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const killAll = () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(killAll, 240_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearTimeout(timer);
    // The live gateway runs in the session's process group until now.
    killAll();
    assert.equal(code, 0, `${stdout}\n${stderr}`);
    const compact = stdout.replace(/\s+/g, '');
    for (const expected of [
      '"transactionStatus":"ACSC"',
      '"transactionStatus":"ACCC"',
      '"signingBasketId":',
      '"fundsAvailable":true',
      '"openapi":"3.1.0"',
      '"failed":0',
    ]) {
      assert.ok(compact.includes(expected), `${expected} in\n${stdout}`);
    }
    // The live payment was initiated through the onboarded app.
    assert.match(compact, /"paymentId":"[^"]+","scaMethods":\[.*\],"transactionStatus":"ACTC"/);
  });
});
