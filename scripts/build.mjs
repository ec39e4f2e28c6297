// npm run build (and npm install, through prepare): the gateway, with the checker and the demo (the
// workspace packages under packages/, linked into node_modules), bundled into dist/cli.js with its
// source map (stack traces point at the TypeScript sources), the SQL migrations and definitions beside
// it, and the sandbox's start snapshot (a database migrated and seeded, dist/sandbox-snapshot). One
// bundle loads in half the time of a module per file. PGlite, pg and the OpenAPI plugins stay packages: they load
// files of their own (the docs UI's static files, through __dirname).
// The typed client is built apart, for other projects (psd2-gateway/client): dist/client/.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
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
  // Below engines' ^22.19 on purpose: the bundle is byte for byte the one for node22.19 (checked), and
  // `npm start` keeps working on Node 20, which is no longer supported (npm install warns EBADENGINE).
  target: 'node20',
  sourcemap: true,
  external: ['@electric-sql/pglite', 'pg', 'pg-native', '@fastify/swagger', '@fastify/swagger-ui'],
  // Bundled CommonJS packages call require: give the ES module one.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
await buildClient();
cpSync('src/store/migrations', 'dist/migrations', { recursive: true });
cpSync('src/store/definitions', 'dist/definitions', { recursive: true });
execFileSync(process.execPath, ['--enable-source-maps', 'dist/cli.js', 'snapshot'], { stdio: 'inherit' });
console.log(`built dist/ in ${Math.round(performance.now() - started)} ms`);

/**
 * dist/client/index.js, one ES module with no import (fetch and Web Crypto only), so that it runs in
 * Node, Deno, Bun and browsers, sharing no chunk with the CLI; and its declarations, by tsc
 * (tsconfig.client.json), whose relative imports keep our `.ts` extensions (TypeScript does not rewrite
 * them in declarations, microsoft/TypeScript#61037): rewritten to `.js`, which every TypeScript >= 4.7
 * resolution mode and every editor resolves to the `.d.ts` beside it.
 */
async function buildClient() {
  await build({
    entryPoints: { index: 'src/client/index.ts' },
    outdir: 'dist/client',
    bundle: true,
    platform: 'neutral',
    format: 'esm',
    target: 'es2022',
    sourcemap: true,
    logLevel: 'warning',
  });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.client.json'], { stdio: 'inherit' });
  for (const name of readdirSync('dist/client').filter((file) => file.endsWith('.d.ts'))) {
    const path = join('dist/client', name);
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.replace(/(['"])(\.{1,2}\/[^'"\n]+)\.ts\1/g, '$1$2.js$1'));
  }
}
