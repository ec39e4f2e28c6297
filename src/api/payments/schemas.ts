// Request and response schemas of the payment endpoints. Objects are closed: a field they do not
// declare is set aside before validation and named in X-Ignored-Fields (http/tolerant-body.ts), so a
// misspelt field is visible without breaking clients that send more than the contract knows.
import { type Static, Type } from '@sinclair/typebox';

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
  closed,
);
export type PaymentBodyInput = Static<typeof PaymentBodySchema>;

const ScaLink = Type.Object({ href: Type.String(), name: Type.String(), type: Type.String() });

export const InitiationResponseSchema = Type.Object({
  paymentId: Type.String(),
  scaMethods: Type.Array(
    Type.Object({
      scaMethodType: Type.String(),
      _links: Type.Object({ authorization: Type.Array(ScaLink) }),
    }),
  ),
  transactionStatus: Type.String(),
});

const CurrencyExchangeSchema = Type.Object({
  sourceCurrency: Type.String(),
  targetCurrency: Type.String(),
  exchangeRate: Type.String(),
  quotationDate: Type.String(),
});

export const StatusResponseSchema = Type.Object({
  paymentId: Type.String(),
  transactionStatus: Type.String(),
  currencyExchange: Type.Optional(CurrencyExchangeSchema),
  reasonCode: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
});

export const ProductParams = Type.Object({ paymentProduct: Type.String({ maxLength: 64 }) });
export const PaymentParams = Type.Object({
  paymentProduct: Type.String({ maxLength: 64 }),
  paymentId: Type.String({ maxLength: 64 }),
});
export const SeV2InitiationParams = Type.Object({
  customerType: Type.String({ maxLength: 16 }),
  paymentProduct: Type.String({ maxLength: 64 }),
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
  closed,
);
export type BasketBodyInput = Static<typeof BasketBodySchema>;

export const BasketResponseSchema = Type.Object({
  payments: Type.Array(Type.Object({ paymentId: Type.String(), tppPaymentReference: Type.String() })),
  signingBaskedId: Type.String(),
});

export const ExecuteResponseSchema = Type.Object({
  paymentId: Type.Optional(Type.String()),
  signingBasketId: Type.Optional(Type.String()),
  transactionStatus: Type.String(),
  currencyExchange: Type.Optional(CurrencyExchangeSchema),
  reasonCode: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
});
