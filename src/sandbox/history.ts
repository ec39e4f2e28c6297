// The sandbox's transaction history: about four months of everyday bookings on every test account and
// card account, ending the day before `today`. Deterministic for a given day (a seeded generator per
// account), balanced like every booking (the other side is the bank's clearing account, or for a
// transfer between two test accounts the other account), so the ledger's invariants hold from the start.

import { createHash } from 'node:crypto';
import type { SeedCardAccount } from '../store/customers-repository.ts';
import type { Entry } from '../store/ledger/history.ts';
import { SCENARIO_PSUS } from './scenarios.ts';
import { type SeedAccount, TEST_ACCOUNTS, TEST_CARD_ACCOUNTS } from './test-data.ts';

export const HISTORY_DAYS = 120;

export interface HistoryBooking {
  readonly bookingId: string;
  readonly bookedOn: string;
  readonly transactionDate: string;
  readonly debtorName: string;
  readonly creditorName: string;
  readonly remittance: string;
  readonly entries: readonly Entry[];
}

interface Party {
  readonly ledgerAccount: string;
  readonly currency: string;
  readonly name: string;
}

/** A deterministic generator in [0, 1) per account (mulberry32 on the account id's hash). */
function generator(seed: string): () => number {
  let state = createHash('sha256').update(seed).digest().readUInt32LE(0);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DAY_MS = 86_400_000;
const isoDay = (time: number) => new Date(time).toISOString().slice(0, 10);

interface Recurring {
  readonly dayOfMonth: number;
  readonly name: string;
  readonly text: string;
  /** Minor units; positive credits the account, negative debits it. */
  readonly amount: (random: () => number) => number;
  /** The other side when it is another test account (a transfer), instead of the clearing account. */
  readonly counterpart?: Party;
}

interface Occasional {
  readonly perWeek: number;
  readonly names: readonly string[];
  readonly text: string;
  readonly amount: (random: () => number) => number;
}

interface Profile {
  readonly recurring: readonly Recurring[];
  readonly occasional: readonly Occasional[];
}

const between = (low: number, high: number) => (random: () => number) =>
  Math.round(low + (high - low) * random());

const account = (index: number): Party => {
  const row = TEST_ACCOUNTS[index]!;
  return { ledgerAccount: row.accountId, currency: row.currency, name: row.ownerName };
};
const cardAccount = (index: number): Party => {
  const row = TEST_CARD_ACCOUNTS[index]!;
  return { ledgerAccount: row.cardAccountId, currency: row.currency, name: row.ownerName };
};

const GROCERIES_SE = ['ICA Maxi', 'Coop Konsum', 'Hemköp', 'Willys', 'Lidl Sverige'];

/** What happens on each test account, by account id. */
function profiles(): Map<string, Profile> {
  const privateSe = (salary: number, rent: number, extra: Recurring[] = []): Profile => ({
    recurring: [
      { dayOfMonth: 25, name: 'Arbetsgivaren AB', text: 'Lön', amount: () => salary },
      { dayOfMonth: 28, name: 'Brf Solgläntan', text: 'Hyra', amount: () => -rent },
      { dayOfMonth: 27, name: 'Vattenfall AB', text: 'El', amount: (r) => -between(45_000, 140_000)(r) },
      { dayOfMonth: 3, name: 'Spotify AB', text: 'Spotify Premium', amount: () => -11_900 },
      ...extra,
    ],
    occasional: [
      { perWeek: 2.5, names: GROCERIES_SE, text: 'Kortköp', amount: (r) => -between(8_900, 124_000)(r) },
      {
        perWeek: 0.5,
        names: ['SL', 'Apoteket', 'Systembolaget'],
        text: 'Kortköp',
        amount: (r) => -between(4_500, 60_000)(r),
      },
    ],
  });
  const corporateSe = (payroll: number): Profile => ({
    recurring: [
      { dayOfMonth: 25, name: 'Löner', text: 'Löneutbetalning', amount: () => -payroll },
      {
        dayOfMonth: 12,
        name: 'Skatteverket',
        text: 'Skatt och avgifter',
        amount: () => -Math.round(payroll * 0.42),
      },
      { dayOfMonth: 1, name: 'Fastighets AB Kvarnen', text: 'Lokalhyra', amount: () => -3_250_000 },
    ],
    occasional: [
      {
        perWeek: 1.5,
        names: ['Kund Alfa AB', 'Kund Beta AB', 'Nordkund AB'],
        text: 'Faktura',
        amount: (r) => between(1_000_000, 8_500_000)(r),
      },
      {
        perWeek: 0.7,
        names: ['Leverantören AB', 'Kontorsvaror AB', 'Transport AB'],
        text: 'Faktura',
        amount: (r) => -between(250_000, 4_000_000)(r),
      },
    ],
  });
  return new Map<string, Profile>([
    [
      account(0).ledgerAccount,
      privateSe(3_250_000, 985_000, [
        {
          dayOfMonth: 26,
          name: 'Tolvan Tolvansson',
          text: 'Sparande',
          amount: () => -200_000,
          counterpart: account(1),
        },
        {
          dayOfMonth: 20,
          name: 'Handelsbanken Mastercard',
          text: 'Kortfaktura',
          amount: (r) => -between(250_000, 600_000)(r),
          counterpart: cardAccount(0),
        },
      ]),
    ],
    [account(1).ledgerAccount, { recurring: [], occasional: [] }],
    [account(2).ledgerAccount, privateSe(2_890_000, 812_000)],
    [
      account(3).ledgerAccount,
      {
        ...corporateSe(14_500_000),
        recurring: [
          ...corporateSe(14_500_000).recurring,
          {
            dayOfMonth: 22,
            name: 'Handelsbanken Business Card',
            text: 'Kortfaktura',
            amount: (r) => -between(1_500_000, 3_000_000)(r),
            counterpart: cardAccount(1),
          },
        ],
      },
    ],
    [
      account(4).ledgerAccount,
      {
        recurring: [
          {
            dayOfMonth: 15,
            name: 'Nordic Parts Oy',
            text: 'Invoice',
            amount: (r) => -between(200_000, 600_000)(r),
          },
        ],
        occasional: [
          {
            perWeek: 0.5,
            names: ['Müller GmbH', 'Schmidt Handel GmbH'],
            text: 'Invoice',
            amount: (r) => between(400_000, 1_200_000)(r),
          },
        ],
      },
    ],
    [account(5).ledgerAccount, corporateSe(9_800_000)],
    [
      account(6).ledgerAccount,
      {
        recurring: [
          { dayOfMonth: 25, name: 'Werkgever B.V.', text: 'Salaris', amount: () => 340_000 },
          { dayOfMonth: 1, name: 'Woonstichting De Key', text: 'Huur', amount: () => -115_000 },
        ],
        occasional: [
          {
            perWeek: 2,
            names: ['Albert Heijn', 'Jumbo', 'HEMA'],
            text: 'Betaalautomaat',
            amount: (r) => -between(1_200, 12_000)(r),
          },
        ],
      },
    ],
    [
      account(7).ledgerAccount,
      {
        recurring: [
          { dayOfMonth: 25, name: 'Employeur SA', text: 'Salaire', amount: () => 480_000 },
          { dayOfMonth: 1, name: 'Immobilière du Centre', text: 'Loyer', amount: () => -190_000 },
        ],
        occasional: [
          {
            perWeek: 2,
            names: ['Cactus', 'Delhaize', 'Auchan'],
            text: 'Paiement carte',
            amount: (r) => -between(3_000, 15_000)(r),
          },
        ],
      },
    ],
    [
      account(8).ledgerAccount,
      {
        recurring: [
          { dayOfMonth: 28, name: 'ACME Ltd', text: 'Salary', amount: () => 295_000 },
          { dayOfMonth: 1, name: 'Landlord Lettings Ltd', text: 'Rent', amount: () => -125_000 },
          { dayOfMonth: 5, name: 'Camden Council', text: 'Council Tax', amount: () => -16_500 },
        ],
        occasional: [
          {
            perWeek: 2,
            names: ['Tesco', "Sainsbury's", 'Pret A Manger'],
            text: 'Card payment',
            amount: (r) => -between(450, 11_000)(r),
          },
        ],
      },
    ],
    [
      cardAccount(0).ledgerAccount,
      {
        recurring: [],
        occasional: [
          {
            perWeek: 3,
            names: ['Circle K', 'SAS', 'Clas Ohlson', 'Max Burgers', 'Elgiganten'],
            text: 'Kortköp',
            amount: (r) => -between(5_900, 250_000)(r),
          },
        ],
      },
    ],
    [
      cardAccount(1).ledgerAccount,
      {
        recurring: [],
        occasional: [
          {
            perWeek: 2,
            names: ['SAS', 'Scandic Hotels', 'Preem', 'Taxi Stockholm'],
            text: 'Kortköp',
            amount: (r) => -between(20_000, 800_000)(r),
          },
        ],
      },
    ],
    // The scenario PSUs' current accounts live as any customer's (their savings account as Tolvan's).
    ...TEST_ACCOUNTS.filter((row) => SCENARIO_PSUS.some(([psuId]) => psuId === row.psuId)).map(
      (row): [string, Profile] => [
        row.accountId,
        row.accountType === 'CACC' ? privateSe(2_650_000, 795_000) : { recurring: [], occasional: [] },
      ],
    ),
  ]);
}

/** The history up to (not including) `today`, in booking order. */
export function sandboxHistory(today: string): HistoryBooking[] {
  const end = Date.parse(`${today}T00:00:00Z`);
  const first = end - HISTORY_DAYS * DAY_MS;
  const owners: Party[] = [
    ...TEST_ACCOUNTS.map((_, index) => account(index)),
    ...TEST_CARD_ACCOUNTS.map((_, index) => cardAccount(index)),
  ];
  const all = profiles();
  const history: HistoryBooking[] = [];
  for (const owner of owners) {
    const profile = all.get(owner.ledgerAccount);
    if (profile === undefined) continue;
    const random = generator(`${owner.ledgerAccount}:${today}`);
    let sequence = 0;
    const add = (time: number, name: string, text: string, minor: number, counterpart?: Party) => {
      const bookedOn = isoDay(time);
      const other = { ledgerAccount: `clearing:${owner.currency}`, ...counterpart, name };
      history.push({
        bookingId: `history:${owner.ledgerAccount}:${bookedOn}:${sequence++}`,
        bookedOn,
        transactionDate: isoDay(Math.max(first, time - Math.floor(random() * 3) * DAY_MS)),
        debtorName: minor < 0 ? owner.name : other.name,
        creditorName: minor < 0 ? other.name : owner.name,
        remittance: text,
        entries: [
          { ledgerAccount: owner.ledgerAccount, currency: owner.currency, amountMinor: minor },
          { ledgerAccount: other.ledgerAccount, currency: owner.currency, amountMinor: -minor },
        ],
      });
    };
    for (let time = first; time < end; time += DAY_MS) {
      const day = new Date(time).getUTCDate();
      for (const item of profile.recurring) {
        if (day === item.dayOfMonth) add(time, item.name, item.text, item.amount(random), item.counterpart);
      }
      for (const item of profile.occasional) {
        if (random() < item.perWeek / 7) {
          const name = item.names[Math.floor(random() * item.names.length)]!;
          add(time, name, item.text, item.amount(random));
        }
      }
    }
  }
  return history.sort((a, b) => a.bookedOn.localeCompare(b.bookedOn));
}

/** Per ledger account, what the history adds up to (minor units). */
function historyTotals(history: readonly HistoryBooking[]): Map<string, number> {
  const totals = new Map<string, number>();
  for (const booking of history) {
    for (const entry of booking.entries) {
      totals.set(entry.ledgerAccount, (totals.get(entry.ledgerAccount) ?? 0) + entry.amountMinor);
    }
  }
  return totals;
}

/**
 * The test accounts and card accounts with opening balances such that, after the history, each holds
 * the balance the test data gives it (the README's figures).
 */
export function withOpeningBalances(history: readonly HistoryBooking[]): {
  accounts: SeedAccount[];
  cardAccounts: SeedCardAccount[];
} {
  const totals = historyTotals(history);
  const opening = (id: string, balance: number) => balance - (totals.get(id) ?? 0);
  return {
    accounts: TEST_ACCOUNTS.map((row) => ({
      ...row,
      balanceMinor: opening(row.accountId, row.balanceMinor),
    })),
    cardAccounts: TEST_CARD_ACCOUNTS.map((row) => ({
      ...row,
      balanceMinor: opening(row.cardAccountId, row.balanceMinor),
    })),
  };
}
