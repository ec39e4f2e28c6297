// The gateway CLI's option parsing, taken from the root package by path: `psd2-gateway check` answers a
// UsageError with one line and exit 2 only when it is the gateway's own class, so the checker cannot
// have a copy. The one line to change when the CLI's helpers become a package of their own.
export { type Command, oneOf, parseOptions, required, UsageError } from '../../../src/cli/args.ts';
