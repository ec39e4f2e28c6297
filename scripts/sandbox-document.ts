// The OpenAPI document of the default sandbox, built without listening: what /openapi.json serves, for
// the scripts that generate from it (npm run collection, npm run client:types).
import pino from 'pino';
import { buildApp } from '../src/app.ts';
import { configWith } from '../src/config.ts';
import { openStore } from '../src/store/database/open.ts';

export async function sandboxDocument(): Promise<object> {
  const store = await openStore({ databaseUrl: undefined, dataDir: undefined });
  try {
    const app = await buildApp({
      config: configWith({ schedulerIntervalMs: 0 }),
      store,
      logger: pino({ level: 'silent' }),
    });
    await app.ready();
    const document = app.swagger();
    await app.close();
    return document;
  } finally {
    await store.close();
  }
}
