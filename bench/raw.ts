// The baselines, raw node:http servers doing the work a request needs without the gateway:
//
// raw(work): parses the JSON (or form) body, validates it about as the contract asks (required fields,
// types, the amount's format, the TPP headers, a known token), keeps the payments it initiated in a Map,
// and builds its answer (new ids, links, the account list, the transactions from dateFrom on, a funds
// check against a balance); never fixed bytes. Every answer echoes TPP-Request-ID and TPP-Transaction-ID
// (API-NOTES: the real service does, and so does the gateway) and says its length, as a server built for
// throughput would (chunked framing costs the client more to read).
//
// raw pg: an execution as one `pg` transaction doing the same booking as the gateway's (the payment's
// status, the debtor's balance, the booking and its two ledger entries), on tables of its own.
//
// raw(work) storing its initiations (rawPgInitiations): raw(work) that also writes each payment with its
// answer under the app's request id on a table of its own before it answers, concurrent requests in one
// multi-row INSERT and one commit: what Node and PostgreSQL allow for an initiation that is kept (issue
// 18's title), next to the gateway's, which keeps the same in the same database.
//
// raw(work) storing its flows (rawPgFlows): raw(work) that keeps every step of the five-step flow in
// PostgreSQL as the gateway does, instead of its Maps: the payment (as above), the authorization code
// and the token (their SHA-256 digests, single use, with an expiry), the execution as raw pg's booking
// in one statement (its checks and writes as data-modifying CTEs: one round trip), the status read from
// the payment's row. Concurrent initiations, codes, exchanges and status reads share a statement; an
// execution is a statement and a transaction of its own. What Node and PostgreSQL allow for a flow
// that is kept, next to the gateway's.
//
// Each lives in bench/raw/ by the work it mirrors: work.ts (the server and its gates), work-oauth.ts,
// work-payments.ts and work-accounts.ts (its routes by family), validation.ts, http.ts (what every
// baseline answers with), work-data.ts (its data and what it hands to PostgreSQL), pg-execution.ts (raw
// pg), pg-initiations.ts, pg-flows.ts and pg-schema.ts (their schema of their own). This file is what
// the bench imports.
export { rawPgServer } from './raw/pg-execution.ts';
export { rawPgFlows } from './raw/pg-flows.ts';
export { rawPgInitiations } from './raw/pg-initiations.ts';
export { rawWorkServer } from './raw/work.ts';
export { emptyRawData, type RawBooking, type RawData } from './raw/work-data.ts';
