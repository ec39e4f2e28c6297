// Request and response schemas of the payment endpoints. Objects are closed: a field they do not
// declare is set aside before validation and named in X-Ignored-Fields (http/tolerant-body.ts), so a
// misspelt field is visible without breaking clients that send more than the contract knows.
import { type Static, Type } from '@sinclair/typebox';
import { acceptedContentField } from '../notifications/subscribing.ts';

/** Examples from the sandbox's test data (the collection's requests run them: test/docs). */
const DOMESTIC_EXAMPLE = {
  debtorAccount: { value: '6000123456789', accountType: 'BBAN', currency: 'SEK' },
  creditorAccount: { value: '6789555555550', accountType: 'BBAN' },
  instructedAmount: { currency: 'SEK', amount: '125.50' },
  remittanceInformationUnstructured: 'Rent March',
};
const SEPA_EXAMPLE = {
  debtorAccount: { value: 'NL46HAND0254678912', accountType: 'IBAN', currency: 'EUR' },
  instructedAmount: { currency: 'EUR', amount: '1000.00' },
  paymentTypeInformation: { serviceLevel: { code: 'SEPA' }, categoryPurpose: { code: 'SUPP' } },
  chargeBearer: 'SLEV',
  creditorAccount: { value: 'DE89370400440532013000', accountType: 'IBAN', country: 'DE' },
  creditor: { name: 'Muster GmbH', postalAddress: { townName: 'Berlin', country: 'DE' } },
  remittanceInformationUnstructured: 'Invoice 2026-11',
};
const OTHER_BANK_EXAMPLE = {
  debtorAccount: { value: '6000123456789', accountType: 'BBAN' },
  creditorAccount: { value: '50001234501', accountType: 'BBAN' },
  instructedAmount: { currency: 'SEK', amount: 99.9 },
  creditor: { name: 'Sven Svensson' },
  remittanceInformationUnstructured: 'Invoice 12',
};

const text = (maxLength: number) => Type.String({ maxLength });
const closed = { additionalProperties: false } as const;

const AccountReference = Type.Object(
  {
    value: text(70),
    accountType: text(10),
    currency: Type.Optional(text(3)),
    country: Type.Optional(text(2)),
    clearingNumber: Type.Optional(text(10)),
  },
  closed,
);

export const PaymentBodySchema = Type.Object(
  {
    debtorAccount: AccountReference,
    creditorAccount: AccountReference,
    instructedAmount: Type.Object(
      { currency: text(3), amount: Type.Union([Type.String({ maxLength: 32 }), Type.Number()]) },
      closed,
    ),
    creditor: Type.Optional(
      Type.Object(
        {
          name: Type.Optional(text(140)),
          postalAddress: Type.Optional(
            Type.Object(
              {
                streetName: Type.Optional(text(70)),
                buildingNumber: Type.Optional(text(16)),
                postCode: Type.Optional(text(16)),
                townName: Type.Optional(text(35)),
                country: Type.Optional(text(2)),
              },
              closed,
            ),
          ),
        },
        closed,
      ),
    ),
    creditorAgent: Type.Optional(Type.Object({ bic: text(11) }, closed)),
    paymentTypeInformation: Type.Optional(
      Type.Object(
        {
          serviceLevel: Type.Optional(Type.Object({ code: text(4) }, closed)),
          categoryPurpose: Type.Optional(Type.Object({ code: text(4) }, closed)),
        },
        closed,
      ),
    ),
    chargeBearer: Type.Optional(text(4)),
    requestedExecutionDate: Type.Optional(text(10)),
    remittanceInformationUnstructured: Type.Optional(text(500)),
    remittanceInformation: Type.Optional(Type.Object({ text: text(500) }, closed)),
    tppPaymentReference: Type.Optional(Type.String({ minLength: 1, maxLength: 35 })),
    endToEndIdentification: Type.Optional(Type.String({ minLength: 1, maxLength: 35 })),
  },
  {
    ...closed,
    description:
      'A single payment. The amount is a decimal string or a number; accountType is IBAN or BBAN (Swedish giro: BG, PG). Fields the contract does not know are set aside and named in X-Ignored-Fields.',
    'x-examples': {
      domestic: { summary: 'Within the bank, SEK (Country: SE)', value: DOMESTIC_EXAMPLE },
      sepa: { summary: 'SEPA from a Dutch account (Country: NL)', value: SEPA_EXAMPLE },
      otherBank: {
        summary: 'To another Swedish bank (other-bank-domestic-credit-transfer, Country: SE)',
        value: OTHER_BANK_EXAMPLE,
      },
    },
  },
);
export type PaymentBodyInput = Static<typeof PaymentBodySchema>;

const ScaLink = Type.Object({ href: Type.String(), name: Type.String(), type: Type.String() });

const ScaMethods = Type.Array(
  Type.Object({
    scaMethodType: Type.String({ description: 'REDIRECT, or DECOUPLED (Sweden)' }),
    _links: Type.Object({ authorization: Type.Array(ScaLink) }),
  }),
  { description: 'Where the PSU authorizes: the authorize URL (redirect) or the decoupled start URL' },
);

export const InitiationResponseSchema = Type.Object(
  {
    paymentId: Type.String({
      description: 'Scope suffix at authorization (`PIS:<paymentId>`), and in execute and status paths',
    }),
    scaMethods: ScaMethods,
    transactionStatus: Type.String({ description: 'ACTC at initiation' }),
    ...acceptedContentField,
  },
  {
    examples: [
      {
        paymentId: '0f9d7c1e-3b7a-4c55-9f0e-5b2c8e1d4a6f',
        scaMethods: [
          {
            scaMethodType: 'REDIRECT',
            _links: {
              authorization: [
                {
                  href: 'http://localhost:3000/oauth2/authorize/1.0',
                  name: 'authorization',
                  type: 'application/json',
                },
              ],
            },
          },
        ],
        transactionStatus: 'ACTC',
      },
    ],
  },
);

const CurrencyExchangeSchema = Type.Object({
  sourceCurrency: Type.String(),
  targetCurrency: Type.String(),
  exchangeRate: Type.String(),
  quotationDate: Type.String(),
});

export const StatusResponseSchema = Type.Object({
  paymentId: Type.String(),
  transactionStatus: Type.String({ description: 'ACTC, ACCC, ACCP, ACSC, RJCT, CANC' }),
  currencyExchange: Type.Optional(CurrencyExchangeSchema),
  reasonCode: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
});

const PaymentProduct = Type.String({
  maxLength: 64,
  description:
    'handelsbanken-domestic-credit-transfer, other-bank-domestic-credit-transfer (execute and status: also other-banks-…), sek-credit-transfer (baskets), british-domestic-credit-transfer, sepa-credit-transfer, cross-currency-credit-transfer',
  examples: ['handelsbanken-domestic-credit-transfer'],
});
const PaymentId = Type.String({
  maxLength: 64,
  description: 'The paymentId of the initiation; for a basket, its signingBaskedId',
});

export const ProductParams = Type.Object({ paymentProduct: PaymentProduct });
export const PaymentParams = Type.Object({ paymentProduct: PaymentProduct, paymentId: PaymentId });
export const SeV2InitiationParams = Type.Object({
  customerType: Type.String({ maxLength: 16, description: 'private or corporate', examples: ['private'] }),
  paymentProduct: PaymentProduct,
});

export const BasketBodySchema = Type.Object(
  {
    payments: Type.Array(
      Type.Object(
        {
          ...PaymentBodySchema.properties,
          paymentProduct: Type.String({ maxLength: 64 }),
          tppPaymentReference: Type.String({ minLength: 1, maxLength: 35 }),
        },
        closed,
      ),
      { minItems: 1, maxItems: 50 },
    ),
  },
  {
    ...closed,
    description:
      'The payments of a basket, each with its product and a tppPaymentReference unique in the basket',
    'x-examples': {
      basket: {
        summary: 'Rent within the bank and a bankgiro payment',
        value: {
          payments: [
            {
              paymentProduct: 'handelsbanken-domestic-credit-transfer',
              tppPaymentReference: 'rent',
              ...DOMESTIC_EXAMPLE,
            },
            {
              paymentProduct: 'sek-credit-transfer',
              tppPaymentReference: 'power',
              debtorAccount: { value: '6000123456789', accountType: 'BBAN' },
              creditorAccount: { value: '505-0109', accountType: 'BG' },
              creditor: { name: 'Elbolaget AB' },
              instructedAmount: { currency: 'SEK', amount: '250.00' },
              remittanceInformationUnstructured: 'OCR 4455667788',
            },
          ],
        },
      },
    },
  },
);

export const BasketResponseSchema = Type.Object({
  payments: Type.Array(Type.Object({ paymentId: Type.String(), tppPaymentReference: Type.String() })),
  signingBaskedId: Type.String({
    description:
      'The basket id (spelt so, as the real service does): the scope suffix and the execute path id',
  }),
  ...acceptedContentField,
});

export const ExecuteResponseSchema = Type.Object({
  paymentId: Type.Optional(Type.String()),
  signingBasketId: Type.Optional(Type.String()),
  transactionStatus: Type.String(),
  currencyExchange: Type.Optional(CurrencyExchangeSchema),
  reasonCode: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
});
