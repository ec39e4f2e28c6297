// The walkthroughs of the README and docs/live.md run as written: every shell block is marked (run,
// server or skip), none holds a placeholder, and the run blocks go in order through one bash session
// against a fresh sandbox (BASE); the server block starts the live gateway in the background (PORT=0)
// and the blocks after it reach it at LIVE. Every status a comment shows (`transactionStatus ACSC`,
// `consentStatus valid`, `201`, a JSON object such as `{"fundsAvailable":true}`) is checked against
// the answers of the commands between that comment and the next: the session's curl records each
// answer (its status line and body), so a wrong comment fails. Skipped, saying so, without bash, curl
// 7.76+ (--fail-with-body) or jq, or without dist/ (npx psd2-gateway and npm start run the build).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { STATUS_CODES } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Gateway, startGateway } from '../helpers/gateway.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
/** The walkthroughs, in the order they run: the README's, then live mode's. */
const FILES = ['README.md', 'docs/live.md'];

interface Block {
  readonly file: string;
  readonly line: number;
  readonly marker: string | undefined;
  readonly code: string;
}

/** A file's ```sh blocks, each with the `<!-- readme-test: … -->` marker just above it. */
function shellBlocks(file: string, markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    if (lines[index] !== '```sh') continue;
    const end = lines.indexOf('```', index + 1);
    const above = /^<!-- readme-test: (\w+)/.exec(lines[index - 1] ?? '')?.[1];
    blocks.push({ file, line: index + 1, marker: above, code: lines.slice(index + 1, end).join('\n') });
    index = end;
  }
  return blocks;
}

/** A comment of a run block (its consecutive `#` lines) and what it says the answers after it hold. */
interface Comment {
  readonly where: string;
  readonly text: string;
  readonly claims: readonly string[];
}

/**
 * What a comment shows of an answer, as the text the answer must hold: `transactionStatus X` and
 * `consentStatus X` as JSON members, an HTTP status (`201`, `201 {…}`) as the status line, and a JSON
 * object (`{"fundsAvailable":true}`) member by member.
 */
function claimsOf(text: string): string[] {
  const claims: string[] = [];
  for (const [, name, value] of text.matchAll(/\b(transactionStatus|consentStatus) ([A-Za-z]+)/g))
    claims.push(`"${name}":"${value}"`);
  for (const [, code] of text.matchAll(/(?:^|[:\s])([1-5]\d\d)(?=\s*(?:\{|$|[,;)]))/gm))
    if (STATUS_CODES[code!] !== undefined) claims.push(`### answer ${code}`);
  for (const [object] of text.matchAll(/\{"[^{}]*\}/g))
    for (const [name, value] of Object.entries(JSON.parse(object) as Record<string, unknown>))
      claims.push(`"${name}":${JSON.stringify(value)}`);
  return claims;
}

/** The run blocks' whole-line comments, a marker before each: `__comment <n>` opens its answers. */
function withCommentMarkers(block: Block, comments: Comment[]): string {
  const lines = block.code.split('\n');
  const out: string[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    if (!/^\s*#/.test(lines[index]!)) {
      out.push(lines[index]!);
      continue;
    }
    const first = index;
    while (/^\s*#/.test(lines[index + 1] ?? '')) index += 1;
    const text = lines.slice(first, index + 1).join('\n');
    out.push(`__comment ${comments.length}`, ...lines.slice(first, index + 1));
    comments.push({ where: `${block.file}:${block.line + first + 1}`, text, claims: claimsOf(text) });
  }
  return out.join('\n');
}

/** What follows a command on its own line (`cmd   # text`): the comment, or nothing. */
function trailingComments(block: Block): string[] {
  return block.code
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .map((line) => /\s#\s(.*)$/.exec(line)?.[1])
    .filter((comment) => comment !== undefined);
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

/**
 * curl as written, which also appends each answer (status line, then body) to $ANSWERS; `__comment n`
 * opens the answers of comment n.
 */
const RECORDER = `
curl() {
  local head out status=0
  head=$(mktemp)
  out=$(command curl -D "$head" "$@") || status=$?
  { printf '\\n### answer %s\\n' "$(awk '/^HTTP\\//{print $2; exit}' "$head")"; printf '%s\\n' "$out"; } >> "$ANSWERS"
  rm -f "$head"
  printf '%s' "$out"
  return $status
}
__comment() { printf '\\n### comment %s\\n' "$1" >> "$ANSWERS"; }`;

/** The session: the run blocks as they are, the server block in the background until LIVE answers. */
function session(blocks: readonly Block[], comments: Comment[]): string {
  const parts = ['set -euo pipefail', 'SERVER_LOG=$(mktemp)', RECORDER];
  for (const block of blocks) {
    parts.push(`echo '### ${block.file} line ${block.line}'`);
    if (block.marker === 'run') parts.push(withCommentMarkers(block, comments));
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

/** The answers recorded after each comment marker, by the comment's number. */
function answersByComment(recorded: string): Map<number, string> {
  const byComment = new Map<number, string>();
  for (const part of recorded.split(/\n### comment (?=\d+\n)/).slice(1)) {
    const newline = part.indexOf('\n');
    byComment.set(Number(part.slice(0, newline)), part.slice(newline + 1));
  }
  return byComment;
}

describe('the README walkthroughs', { skip }, () => {
  let gateway: Gateway;
  let blocks: Block[];
  let scratch: string;
  before(async () => {
    gateway = await startGateway();
    blocks = [];
    for (const file of FILES) blocks.push(...shellBlocks(file, await readFile(join(ROOT, file), 'utf8')));
    scratch = await mkdtemp(join(tmpdir(), 'readme-walkthrough-'));
  });
  after(async () => {
    await gateway?.close();
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });

  test('every shell block is marked, and none holds a placeholder', () => {
    assert.deepEqual(
      blocks
        .filter((block) => !['run', 'server', 'skip'].includes(block.marker ?? ''))
        .map((block) => `${block.file}:${block.line}`),
      [],
    );
    const placeholders = blocks.filter(
      (block) => block.marker !== 'skip' && /\.\.\.|…|<[a-z_]+>/.test(block.code),
    );
    assert.deepEqual(
      placeholders.map((block) => `${block.file}:${block.line}`),
      [],
    );
    assert.equal(blocks.filter((block) => block.marker === 'server').length, 1);
  });

  test('a status is shown only in a comment of its own line, where the test checks it', () => {
    const unchecked = blocks
      .filter((block) => block.marker === 'run')
      .flatMap(trailingComments)
      .filter((comment) => claimsOf(comment).length > 0);
    assert.deepEqual(unchecked, []);
  });

  test('the blocks run in order, as written, against a fresh sandbox and a live gateway', async () => {
    const comments: Comment[] = [];
    const script = session(blocks, comments);
    const answersFile = join(scratch, 'answers');
    const child = spawn('bash', ['-c', script], {
      cwd: ROOT,
      env: { ...process.env, BASE: gateway.url, PORT: '0', LOG_LEVEL: 'info', ANSWERS: answersFile },
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

    // Every status a comment shows is in the answers between it and the next comment.
    const answers = answersByComment(await readFile(answersFile, 'utf8'));
    const wrong = comments.flatMap((comment, index) => {
      const after = (answers.get(index) ?? '').replace(/\s+/g, '');
      return comment.claims
        .filter((claim) => !after.includes(claim.replace(/\s+/g, '')))
        .map(
          (claim) =>
            `${comment.where}: ${claim} not in the answers after "${comment.text}":\n${answers.get(index) ?? '(none)'}`,
        );
    });
    assert.deepEqual(wrong, []);
    // The comments that show statuses: the walkthroughs' steps (a change that drops them fails here).
    assert.ok(comments.filter((comment) => comment.claims.length > 0).length >= 6, JSON.stringify(comments));
  });
});
