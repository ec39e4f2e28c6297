// A TPP's app: who calls the API (X-Gateway-Client-Id) and where the PSU is sent back to.

export interface App {
  readonly clientId: string;
  readonly name: string;
  readonly description: string;
  readonly redirectUri: string;
  readonly seeded: boolean;
  /** The TPP that registered the app (onboarding); none for seeded sandbox apps. */
  readonly tppId?: string | null;
  /** Sandbox: how far the app's clock is ahead of real time (POST /sandbox/clock); live never read. */
  readonly clockOffsetMs?: number;
  /** The hosts its status notifications may go to in live mode (onboarding's app.notificationHosts). */
  readonly notificationHosts?: readonly string[];
}
