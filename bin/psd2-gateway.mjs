#!/usr/bin/env node
// Runs the compiled gateway (dist/, made by npm install or npm run build); stack traces point at the
// TypeScript sources through the source maps.
import { existsSync } from 'node:fs';

process.setSourceMapsEnabled(true);
const entry = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('psd2-gateway: not built yet: run npm run build (npm install does it)\n');
  process.exit(1);
}
await import(entry.href);
