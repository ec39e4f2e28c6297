// npm run build (and npm install, through prepare): the gateway, with the checker and the demo (the
// workspace packages under packages/, linked into node_modules), bundled into dist/cli.js with its
// source map (stack traces point at the TypeScript sources), the SQL migrations and definitions beside
// it, and the sandbox's start snapshot (a database migrated and seeded, dist/sandbox-snapshot). One
// bundle loads in half the time of a module per file. PGlite, pg and the OpenAPI plugins stay packages: they load
// files of their own (the docs UI's static files, through __dirname).
// The typed client, @psd2-gateway/client, is built first, in its own package (scripts/build-client.mjs).
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { build } from 'esbuild';
import { buildClient } from './build-client.mjs';

const started = performance.now();
await buildClient();
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
  // Below engines' ^22.19 on purpose: the bundle is byte for byte the one for node22.19 (checked), and
  // `npm start` keeps working on Node 20, which is no longer supported (npm install warns EBADENGINE).
  target: 'node20',
  sourcemap: true,
  // The maps name the TypeScript files and lines, without a copy of their text: Node reads every map
  // of the code it loads at start (source maps enabled), and the text was two thirds of their size.
  sourcesContent: false,
  // Without the comments and indentation of the packages bundled: less text to parse at start and to
  // hold in memory, and ASCII only (a single non-Latin-1 character in a comment made V8 hold a chunk's
  // text at two bytes a character). Names are kept (stack traces, Fastify's plugin names); their
  // licences go to a file beside each chunk.
  minifyWhitespace: true,
  legalComments: 'linked',
  external: ['@electric-sql/pglite', 'pg', 'pg-native', '@fastify/swagger', '@fastify/swagger-ui'],
  // Bundled CommonJS packages call require: give the ES module one.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
cpSync('src/store/migrations', 'dist/migrations', { recursive: true });
cpSync('src/store/definitions', 'dist/definitions', { recursive: true });
execFileSync(process.execPath, ['--enable-source-maps', 'dist/cli.js', 'snapshot'], { stdio: 'inherit' });
console.log(`built dist/ in ${Math.round(performance.now() - started)} ms`);
