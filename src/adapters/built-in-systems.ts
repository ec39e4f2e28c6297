// The bank's systems as the gateway brings them: a double-entry ledger as core banking, a PSU
// directory, the e-ID simulator and the sandbox's exchange rates, all in the gateway's database.
// app.ts takes these unless it is given a bank's own (src/ports/ says what each must do). Two of them
// bring more than their port: the ledger books an execution and records it in one transaction, and the
// simulator brings the PSU a pretend e-ID app; app.ts wires each only while its system is the built-in one.
import type { Clock } from '../domain/clock.ts';
import type { ScenarioOf } from '../domain/scenarios.ts';
import type { CoreBanking } from '../ports/core-banking.ts';
import type { EidProvider } from '../ports/eid-provider.ts';
import type { ExchangeRates } from '../ports/exchange-rates.ts';
import type { PsuDirectory } from '../ports/psu-directory.ts';
import type { StoreDb } from '../store/database.ts';
import { builtInPsuDirectory } from './built-in-psu-directory.ts';
import { eidSimulator, simulatedEidApp } from './eid-simulator.ts';
import { ledgerCoreBanking, ledgerRecordedBookings } from './ledger-core-banking.ts';
import { sandboxRates } from './sandbox-rates.ts';

export interface BankSystems {
  readonly coreBanking: CoreBanking;
  readonly psuDirectory: PsuDirectory;
  readonly eid: EidProvider;
  readonly rates: ExchangeRates;
}

/** The built-in systems with what they bring beyond their ports. */
export interface BuiltInSystems extends BankSystems {
  /** The ledger's one-transaction booking of an execution (services/shared/recorded-bookings.ts). */
  readonly recordedBookings: ReturnType<typeof ledgerRecordedBookings>;
  /** The simulator's pretend e-ID app for the PSU (services/shared/simulated-eid-app.ts). */
  readonly simulatedEid: ReturnType<typeof simulatedEidApp>;
}

export interface BuiltInOptions {
  /**
   * Where the ledger's and the directory's account-information reads go (balances, statements, funds,
   * a PSU's accounts and cards): a standby's handle (Store.readDb); unset: the same as `db`.
   */
  readonly readDb?: StoreDb;
  readonly clock: Clock;
  /** The ledger rejects what an account cannot pay (live). */
  readonly enforceFunds: boolean;
  /** The simulator completes every order at its first collect (sandbox). */
  readonly instantEid: boolean;
  /** The sandbox's scenario PSUs, whose e-ID orders the simulator plays out as scripted. */
  readonly scenarioOf: ScenarioOf;
  /** The bank's exchange rates (FX_RATES); unset: the sandbox's fixed rates. */
  readonly rates?: ExchangeRates;
}

export function builtInSystems(db: StoreDb, options: BuiltInOptions): BuiltInSystems {
  const rates = options.rates ?? sandboxRates;
  const readDb = options.readDb ?? db;
  const ledger = { db, readDb, enforceFunds: options.enforceFunds, rates, clock: options.clock };
  return {
    coreBanking: ledgerCoreBanking(ledger),
    recordedBookings: ledgerRecordedBookings(ledger),
    psuDirectory: builtInPsuDirectory(db, readDb),
    eid: eidSimulator({ db, instant: options.instantEid, scenarioOf: options.scenarioOf }),
    simulatedEid: simulatedEidApp(db),
    rates,
  };
}
