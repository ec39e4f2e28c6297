// psd2-gateway check: a black-box conformance checker. It runs the contract's flows and negative cases
// against any endpoint over plain HTTP(S) and prints each deviation with the contract row it breaks.
// It never imports the server: --help loads only the options; the checks load when it runs.
import type { Command } from './cli-args.ts';
import { parseCheckOptions, USAGE } from './options.ts';

export const checkCommand: Command = {
  summary: 'check an endpoint against the contract: flows, statuses, headers, fields, error shapes',
  usage: USAGE,
  async run(args) {
    const options = parseCheckOptions(args);
    const [{ CHECKS }, { runChecks }, { formatResults }] = await Promise.all([
      import('./checks/index.ts'),
      import('./runner.ts'),
      import('./format.ts'),
    ]);
    const results = await runChecks(CHECKS, options);
    process.stdout.write(formatResults(results, options));
    return results.some((result) => result.result === 'fail') ? 1 : 0;
  },
};
