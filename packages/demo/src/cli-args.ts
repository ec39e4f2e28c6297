// The gateway CLI's option parsing, taken from the root package by path: `psd2-gateway demo` answers a
// UsageError with one line and exit 2 only when it is the gateway's own class. The one line to change
// when the CLI's helpers become a package of their own.
export { type Command, oneOf, parseOptions, UsageError } from '../../../src/cli/args.ts';
