// npm run collection: writes the Postman collection generated from the OpenAPI document of the
// default sandbox to docs/ (test/docs/collection.test.ts fails while the committed one differs).
import { writeFile } from 'node:fs/promises';
import pino from 'pino';
import { COMMITTED_COLLECTION, COMMITTED_VALUES, postmanCollection } from '../src/api/docs/collection.ts';
import { buildApp } from '../src/app.ts';
import { configWith } from '../src/config.ts';
import { openStore } from '../src/store/database/open.ts';

const store = await openStore({ databaseUrl: undefined, dataDir: undefined });
try {
  const app = await buildApp({
    config: configWith({ schedulerIntervalMs: 0 }),
    store,
    logger: pino({ level: 'silent' }),
  });
  await app.ready();
  const collection = postmanCollection(app.swagger() as never, COMMITTED_VALUES);
  await writeFile(COMMITTED_COLLECTION, `${JSON.stringify(collection, null, 2)}\n`);
  await app.close();
  console.log(`wrote ${COMMITTED_COLLECTION}`);
} finally {
  await store.close();
}
