// The real sandbox's user names (API-NOTES "X-Sandbox-User"): a client sends `X-Sandbox-User:
// SANDBOX-INDIVIDUAL-SE-1` on the authorize request to pick the sandbox user whose code is answered at
// once. Each name is one of our test PSUs (src/sandbox/test-data.ts), per customer type and country.

/** The sandbox user names and the test PSU each one is, in the order the test data lists them. */
export const SANDBOX_USERS: Readonly<Record<string, string>> = {
  'SANDBOX-INDIVIDUAL-SE-1': '191212121212',
  'SANDBOX-INDIVIDUAL-SE-2': '198112289874',
  'SANDBOX-CORPORATE-SE-1': '197001011234',
  'SANDBOX-CORPORATE-SE-2': '196802022345',
  'SANDBOX-INDIVIDUAL-NL-1': 'nl-1001',
  'SANDBOX-INDIVIDUAL-LU-1': 'lu-2001',
  'SANDBOX-INDIVIDUAL-GB-1': 'gb-3001',
};

/** The test PSU a sandbox user name stands for (names compared without case), or undefined. */
export function sandboxUserPsu(name: string): string | undefined {
  const key = name.toUpperCase();
  return Object.hasOwn(SANDBOX_USERS, key) ? SANDBOX_USERS[key] : undefined;
}
