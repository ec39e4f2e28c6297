// The contract lives in the repository (docs/contract): verbatim copies of the shared folder's spec and
// API notes. Where that folder lies beside the clone (../shared, or CONTRACT_SOURCE names it), the
// copies must be identical to it; elsewhere (a clone on its own) the test says it skipped.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';

const ROOT = new URL('../../', import.meta.url).pathname;
const COPIES = ['spec/payment-initiation-service.md', 'API-NOTES.md'];
const SOURCE = process.env.CONTRACT_SOURCE ?? join(ROOT, '..', 'shared');

function skipReason(): string | false {
  if (COPIES.every((file) => existsSync(join(SOURCE, file)))) return false;
  const reason = `contract copies not compared: no ${SOURCE} with ${COPIES.join(' and ')} beside the clone (set CONTRACT_SOURCE)`;
  console.log(`# ${reason}`);
  return reason;
}

describe('the contract in docs/contract', () => {
  test('the copies are there and not empty', () => {
    for (const file of COPIES) {
      assert.ok(readFileSync(join(ROOT, 'docs/contract', file), 'utf8').length > 1000, file);
    }
  });

  test('the copies are verbatim copies of the shared folder', { skip: skipReason() }, () => {
    for (const file of COPIES) {
      assert.equal(
        readFileSync(join(ROOT, 'docs/contract', file), 'utf8'),
        readFileSync(join(SOURCE, file), 'utf8'),
        `docs/contract/${file} differs from ${join(SOURCE, file)}: copy it again`,
      );
    }
  });
});
