// The typed client, @psd2-gateway/client (packages/client), built for other projects: dist/index.js, one
// ES module with no import (fetch and Web Crypto only), so that it runs in Node, Deno, Bun and browsers;
// and its declarations, by tsc (packages/client/tsconfig.json), whose relative imports keep our `.ts`
// extensions (TypeScript does not rewrite them in declarations, microsoft/TypeScript#61037): rewritten to
// `.js`, which every TypeScript >= 4.7 resolution mode and every editor resolves to the `.d.ts` beside it.
// Run by npm run build (scripts/build.mjs) and, alone, by `npm pack` in packages/client (its prepack).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const HOME = fileURLToPath(new URL('../packages/client/', import.meta.url));

export async function buildClient() {
  const dist = join(HOME, 'dist');
  rmSync(dist, { recursive: true, force: true });
  await build({
    entryPoints: { index: join(HOME, 'src/index.ts') },
    outdir: dist,
    bundle: true,
    platform: 'neutral',
    format: 'esm',
    target: 'es2022',
    logLevel: 'warning',
  });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(HOME, 'tsconfig.json')], { stdio: 'inherit' });
  for (const name of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
    if (!name.endsWith('.d.ts')) continue;
    const path = join(dist, name);
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.replace(/(['"])(\.{1,2}\/[^'"\n]+)\.ts\1/g, '$1$2.js$1'));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildClient();
