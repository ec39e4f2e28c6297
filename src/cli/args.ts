// What every subcommand of the CLI is, and how it reads its options: node:util's parseArgs, strict, so
// that an unknown option or a missing value is a one-line usage error (exit 2) instead of a guess.
import { type ParseArgsConfig, parseArgs } from 'node:util';

/** A subcommand: its module is imported only when it is named, and --help never runs it. */
export interface Command {
  /** One line for `psd2-gateway help`. */
  readonly summary: string;
  /** The whole usage text, printed by `psd2-gateway <command> --help`. */
  readonly usage: string;
  /** Runs the command with the arguments after its name; answers the exit code. */
  run(args: readonly string[]): Promise<number>;
}

/** A mistake in how the command was called: printed as one line, exit code 2. */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses options (and positionals, when `positionals` is true); a mistake is a UsageError. */
export function parseOptions<const O extends Options>(
  args: readonly string[],
  options: O,
  positionals = false,
) {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: positionals });
  } catch (error) {
    throw new UsageError(describeParseError(error as Error & { code?: string }));
  }
}

/** node:util's messages, shortened to one line that names the offending argument. */
function describeParseError(error: Error & { code?: string }): string {
  const named = /'([^']+)'/.exec(error.message)?.[1];
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${named ?? ''}`.trim();
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${named ?? ''}`.trim();
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return error.message.split('\n')[0]!.replace(/^Option /, 'option ');
    default:
      return error.message.split('\n')[0]!;
  }
}

/** A required option's value; absent or empty is a UsageError. */
export function required(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** One of the allowed words; anything else is a UsageError that lists them. */
export function oneOf<const T extends string>(
  value: string | undefined,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
}
