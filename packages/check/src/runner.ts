// Runs the checks one after another. A check whose facts an earlier check did not provide (that check
// failed or was skipped) is skipped and says which; when the run's time is up, the rest are skipped.
import {
  type Check,
  type CheckContext,
  type CheckResult,
  Deviation,
  type FactName,
  type Facts,
  Skip,
} from './check.ts';
import type { CheckOptions } from './options.ts';

/** Which check provides each fact; a check needing a fact no earlier check provides is a mistake here. */
function providers(checks: readonly Check[]): Map<FactName, Check> {
  const byFact = new Map<FactName, Check>();
  for (const check of checks) {
    for (const need of check.needs ?? []) {
      if (!byFact.has(need))
        throw new Error(`check ${check.id} needs ${need}, which no earlier check provides`);
    }
    for (const fact of check.provides ?? []) byFact.set(fact, check);
  }
  return byFact;
}

export async function runChecks(
  checks: readonly Check[],
  options: CheckOptions,
  clock: () => number = () => performance.now(),
): Promise<CheckResult[]> {
  const byFact = providers(checks);
  const facts = new Map<FactName, unknown>();
  const deadline = clock() + options.totalTimeoutMs;
  const context: CheckContext = {
    options,
    remainingMs: () => deadline - clock(),
    fact<K extends FactName>(name: K): Facts[K] {
      if (!facts.has(name)) throw new Error(`${name} was not provided`);
      return facts.get(name) as Facts[K];
    },
    provide(name, value) {
      facts.set(name, value);
    },
  };
  const results: CheckResult[] = [];
  for (const check of checks) {
    const started = clock();
    const done = (outcome: Pick<CheckResult, 'result' | 'expected' | 'actual' | 'reason'>): CheckResult => ({
      id: check.id,
      title: check.title,
      ref: check.ref,
      ...outcome,
      ms: Math.round(clock() - started),
    });
    const missing = (check.needs ?? []).find((need) => !facts.has(need));
    if (context.remainingMs() <= 0) {
      results.push(
        done({ result: 'skip', reason: `the total time limit of ${options.totalTimeoutMs} ms was reached` }),
      );
    } else if (missing !== undefined) {
      const provider = byFact.get(missing)!;
      const outcome = results.find((result) => result.id === provider.id)?.result;
      const why = outcome === 'fail' ? 'failed' : outcome === 'skip' ? 'was skipped' : 'did not provide it';
      results.push(done({ result: 'skip', reason: `needs ${missing} from ${provider.id}, which ${why}` }));
    } else {
      results.push(done(await outcomeOf(check, context)));
    }
  }
  return results;
}

async function outcomeOf(
  check: Check,
  context: CheckContext,
): Promise<Pick<CheckResult, 'result' | 'expected' | 'actual' | 'reason'>> {
  try {
    await check.run(context);
    return { result: 'pass' };
  } catch (error) {
    if (error instanceof Deviation) return { result: 'fail', expected: error.expected, actual: error.actual };
    if (error instanceof Skip) return { result: 'skip', reason: error.reason };
    return {
      result: 'fail',
      expected: 'a conforming answer',
      actual: `the checker failed: ${(error as Error).message}`,
    };
  }
}

export function summaryOf(results: readonly CheckResult[]) {
  const count = (outcome: CheckResult['result']) =>
    results.filter((result) => result.result === outcome).length;
  return { total: results.length, passed: count('pass'), failed: count('fail'), skipped: count('skip') };
}
