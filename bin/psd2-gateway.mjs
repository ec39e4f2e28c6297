#!/usr/bin/env node
// Runs the compiled gateway (dist/, made by npm install or npm run build); stack traces point at the
// TypeScript sources through the source maps.
import { existsSync } from 'node:fs';
import module from 'node:module';

const entry = new URL('../dist/cli.js', import.meta.url);
// The maps of the gateway's own code, not those of the packages it loads from node_modules: Node reads
// and holds every map of the code it loads, and PGlite's and glob's are 1.7 MB of JSON that no stack
// trace of ours needs (Node 22.14 and later; Node 20 maps everything). Installed as a package, the
// gateway itself is under node_modules.
if (module.setSourceMapsSupport === undefined) process.setSourceMapsEnabled(true);
else module.setSourceMapsSupport(true, { nodeModules: entry.pathname.includes('/node_modules/') });
if (!existsSync(entry)) {
  process.stderr.write('psd2-gateway: not built yet: run npm run build (npm install does it)\n');
  process.exit(1);
}
await import(entry.href);
