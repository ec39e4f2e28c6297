// What a database error says: the database cannot answer now, or the connection died under a statement.

/**
 * SQLSTATEs of a database that cannot serve now: connection exceptions (08001 also when no host of
 * several takes writes, store/database/primary.ts), shutdown, too many clients, a statement past its
 * bound, and a write that reached a server that is read-only now (25006: a standby; a failover is
 * under way or the URL names no primary).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[1-3]|53300|57014|25006)$/;
/** Node's and pg's words for a connection that failed, ended or timed out. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'ECONNABORTED',
  'EADDRNOTAVAIL',
  // A host name that no longer resolves (a container gone, a service with no endpoints) or whose
  // resolver did not answer: the database cannot be reached now, as when it refuses.
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Connection terminated unexpectedly)/;

/**
 * Whether an error (or its cause, as Drizzle wraps the driver's) says the database cannot answer now,
 * rather than that a statement is wrong: the caller may try again later.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return anyCause(
    error,
    (code, message) =>
      (code !== undefined && (UNAVAILABLE_STATES.test(code) || UNAVAILABLE_CODES.has(code))) ||
      UNAVAILABLE_MESSAGES.test(message),
  );
}

/** Whether the error or one of its causes (Drizzle wraps the driver's) has a code or message that says so. */
function anyCause(error: unknown, says: (code: string | undefined, message: string) => boolean): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (says(typeof code === 'string' ? code : undefined, current.message)) return true;
    current = current.cause;
  }
  return false;
}

/** SQLSTATEs of a connection ended under a statement: the server shut down or crashed, the link failed. */
const LOST_STATES = new Set(['57P01', '57P02', '08006', '08003']);
const LOST_MESSAGES =
  /^(Connection terminated unexpectedly|Connection terminated$|Client has encountered a connection error)/;

/**
 * Whether the connection a statement ran on died under it (not a timeout, not a refusal): the
 * statement took no effect unless it was a commit, and a new connection may well serve it.
 */
export function isConnectionLost(error: unknown): boolean {
  return anyCause(
    error,
    (code, message) =>
      (code !== undefined && (LOST_STATES.has(code) || code === 'ECONNRESET' || code === 'EPIPE')) ||
      LOST_MESSAGES.test(message),
  );
}
