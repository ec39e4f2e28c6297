// npm run build (and npm install, through prepare): the gateway bundled into dist/cli.js with its
// source map (stack traces point at the TypeScript sources), the SQL migrations beside it, and the
// sandbox's start snapshot (a database migrated and seeded, dist/sandbox-snapshot). One bundle loads
// in half the time of a module per file. PGlite and pg stay packages: they load files of their own.
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const started = performance.now();
rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: { cli: 'src/cli/index.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  // The commands load their own chunks: --help loads nothing of the server.
  splitting: true,
  chunkNames: '[name]-[hash]',
  target: 'node20',
  sourcemap: true,
  external: ['@electric-sql/pglite', 'pg', 'pg-native'],
  // Bundled CommonJS packages call require: give the ES module one.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
cpSync('src/store/migrations', 'dist/migrations', { recursive: true });
execFileSync(process.execPath, ['--enable-source-maps', 'dist/cli.js', 'snapshot'], { stdio: 'inherit' });
console.log(`built dist/ in ${Math.round(performance.now() - started)} ms`);
