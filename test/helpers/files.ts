// The TypeScript files under a directory, for the tests that read the code itself (test/architecture).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

export async function typeScriptFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory() ? typeScriptFiles(join(dir, entry.name)) : [join(dir, entry.name)],
    ),
  );
  return nested.flat().filter((file) => file.endsWith('.ts'));
}
