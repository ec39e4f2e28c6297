// Sandbox scenarios: what a dedicated test PSU makes happen, so that a TPP can rehearse the failures
// of the live service (src/sandbox/scenarios.ts lists the PSUs; the README and /sandbox/test-data
// list them too). Rejected executions come from the test accounts themselves (blocked, empty, with a
// daily limit, of a type that may not pay other banks), which the ledger checks as live.

export interface PsuScenario {
  /** How the PSU answers an authorization: declines it, or lets it run out. */
  readonly authorization?: 'declines' | 'expires';
  /** Decoupled: token polls answered IN_PROGRESS before the e-ID order ends. */
  readonly pendingPolls?: number;
  /** Decoupled: the poll at which the gateway ends the session with mbid_max_polling. */
  readonly maxPolls?: number;
  /** What becomes of a consent right after the PSU approved it. */
  readonly consent?: 'expires' | 'revoked';
}

/** The scenario of a PSU, if the PSU has one. */
export type ScenarioOf = (psuId: string) => PsuScenario | undefined;

export const NO_SCENARIOS: ScenarioOf = () => undefined;

/**
 * What becomes of a payment executed to a scenario's creditor account: accepted (ACCP) and settled on
 * the next bank day, as payments to other banks are (Bankgiro, clearing): to ACSC, or to RJCT with a
 * reason code and text.
 */
export interface SettlementScenario {
  readonly outcome: 'settled' | 'rejected';
  readonly reasonCode?: string;
  readonly reason?: string;
}

/** The settlement scenario of a creditor account (as the payment stores it), if it has one. */
export type SettlementOf = (creditorAccount: string) => SettlementScenario | undefined;

export const NO_SETTLEMENTS: SettlementOf = () => undefined;
