// The consent answer shared by account consents and Swedish short-term consents.
import { Type } from '@sinclair/typebox';
import { acceptedContentField } from '../notifications/subscribing.ts';

const ScaLink = Type.Object({ href: Type.String(), name: Type.String(), type: Type.String() });

export const ConsentResponse = Type.Object({
  consentId: Type.String(),
  consentStatus: Type.String(),
  scaMethods: Type.Array(
    Type.Object({
      scaMethodType: Type.String(),
      _links: Type.Object({ authorization: Type.Array(ScaLink) }),
    }),
  ),
  ...acceptedContentField,
});

export const Amount = Type.Object({ content: Type.String(), currency: Type.String() });

/** An account's identifying fields (API-NOTES "Account"). */
export const AccountFields = {
  accountId: Type.String(),
  iban: Type.Optional(Type.String()),
  bban: Type.Optional(Type.String()),
  clearingNumber: Type.Optional(Type.String()),
  bic: Type.Optional(Type.String()),
  currency: Type.String(),
  accountType: Type.String(),
  name: Type.String(),
  ownerName: Type.String(),
};

export const Balances = Type.Array(Type.Object({ amount: Amount, balanceType: Type.String() }));

/** A consent body: closed, with the example every consent request can send. */
export const CONSENT_BODY_OPTIONS = {
  additionalProperties: false,
  'x-examples': { allAccounts: { summary: 'All accounts', value: { access: 'ALL_ACCOUNTS' } } },
} as const;
