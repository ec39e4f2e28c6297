// npm run collection: writes the Postman collection generated from the OpenAPI document of the
// default sandbox to docs/ (test/docs/collection.test.ts fails while the committed one differs).
import { writeFile } from 'node:fs/promises';
import { COMMITTED_COLLECTION, COMMITTED_VALUES, postmanCollection } from '../src/api/docs/collection.ts';
import { sandboxDocument } from './sandbox-document.ts';

const collection = postmanCollection((await sandboxDocument()) as never, COMMITTED_VALUES);
await writeFile(COMMITTED_COLLECTION, `${JSON.stringify(collection, null, 2)}\n`);
console.log(`wrote ${COMMITTED_COLLECTION}`);
