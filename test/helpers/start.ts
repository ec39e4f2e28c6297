// Starts the gateway as main does (src/main.ts start()), with a logger that keeps its lines.
import pino from 'pino';
import type { Config } from '../../src/config.ts';
import { loggerOptions } from '../../src/http/logging.ts';
import { start } from '../../src/main.ts';

export async function startCapturing(config: Config) {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(loggerOptions(config), {
    write: (line: string) => {
      lines.push(JSON.parse(line));
    },
  });
  return { lines, server: await start(config, logger) };
}
