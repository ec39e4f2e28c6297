// Hot lookups as prepared statements: built once per database handle instead of once per call, and
// parsed once per connection by PostgreSQL. Inside a transaction the query is built for that
// transaction (a transaction handle is short-lived).
import type { Db } from './database.ts';

export function preparedFor<T>(build: (db: Db) => T): (db: Db) => T {
  const cache = new WeakMap<Db, T>();
  return (db) => {
    let query = cache.get(db);
    if (query === undefined) {
      query = build(db);
      cache.set(db, query);
    }
    return query;
  };
}
