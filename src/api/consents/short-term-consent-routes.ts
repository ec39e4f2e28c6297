// The Swedish short-term consent (spec rows 14 and 15).
import { Type } from '@sinclair/typebox';
import { idempotencyKeyOf } from '../../http/idempotency-key.ts';
import { grantOf, tppOf } from '../../http/request-context.ts';
import { corporateHeaders, header } from '../../http/tpp-headers.ts';
import {
  createShortTermConsent,
  readConsentedAccounts,
} from '../../services/account-information/short-term-consent.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { baseUrlOf } from '../base-url.ts';
import { type Api, answerWith, asBody } from '../shared/api.ts';
import { bearer } from '../shared/bearer.ts';
import type { Pipelines } from '../shared/pipeline.ts';
import {
  answer,
  apiErrors,
  BEARER,
  BODY_ERRORS,
  KEYED_ERRORS,
  TPP_CALL_ERRORS,
  tppHeaderSchema,
} from '../shared/schemas.ts';
import { tppHeaders } from '../shared/tpp-app.ts';
import { AccountFields, Balances, CONSENT_BODY_OPTIONS, ConsentResponse } from './schemas.ts';

const ConsentBody = Type.Object({ access: Type.Literal('ALL_ACCOUNTS') }, CONSENT_BODY_OPTIONS);

const AccountsResponse = Type.Object({
  accounts: Type.Array(
    Type.Object({
      ...AccountFields,
      balances: Balances,
      cards: Type.Array(Type.Object({ maskedPan: Type.String(), name: Type.String() })),
    }),
  ),
});

export function shortTermConsentRoutes(
  app: Api,
  context: ServiceContext,
  { route, limits }: Pipelines,
): void {
  const live = () => ({ role: 'PIS' as const, products: ['payments-se-private'] });
  // Counted per address first, then the TPP headers and the token, then counted per app.
  const steps = [
    limits.apiAddress,
    tppHeaders(context, { country: 'path', live }),
    bearer(context),
    limits.apiApp,
  ];

  app.post(
    '/psd2/se/v2/payments/private/accounts/shorttermconsents',
    route({
      onRequest: steps,
      schema: {
        summary: 'Ask for a short-term consent (Sweden, private customers)',
        description:
          "With a client-credentials token of scope PIS. The PSU approves it through the authorize endpoint (scope `PIS:<consentId>`); the PSU's token then reads the account list once, for choosing the account to pay from.",
        operationId: 'createShortTermConsent',
        tags: ['Consents'],
        security: BEARER,
        headers: tppHeaderSchema({
          corporate: true,
          keyed: true,
          extra: {
            'PSU-ID': Type.Optional(
              Type.String({
                description:
                  'The individual who is to approve, when known in advance (optional); a corporate customer is refused',
              }),
            ),
          },
        }),
        body: ConsentBody,
        response: {
          201: answer(ConsentResponse, 'Created (received): the consentId and where the PSU approves'),
          ...apiErrors(...TPP_CALL_ERRORS, ...KEYED_ERRORS, ...BODY_ERRORS),
        },
      },
      handler: async (request, reply) => {
        const tpp = tppOf(request);
        const answer = await createShortTermConsent(context, {
          app: tpp.app,
          grant: grantOf(request),
          idempotencyKey: idempotencyKeyOf(request),
          access: request.body.access,
          corporate: corporateHeaders(request),
          psuId: header(request, 'psu-id'),
          baseUrl: baseUrlOf(context.config, request),
        });
        return answerWith(reply, answer);
      },
    }),
  );

  app.get(
    '/psd2/se/v2/payments/private/accounts',
    route({
      onRequest: steps,
      schema: {
        summary: 'Read the accounts under a short-term consent (Sweden)',
        description:
          "With the PSU's token of the short-term consent: the accounts, their balances and cards.",
        operationId: 'listShortTermConsentAccounts',
        tags: ['Consents'],
        security: BEARER,
        headers: tppHeaderSchema(),
        response: {
          200: answer(AccountsResponse, "The PSU's accounts"),
          ...apiErrors(...TPP_CALL_ERRORS, 429),
        },
      },
      handler: async (request) =>
        asBody(await readConsentedAccounts(context, tppOf(request).app, grantOf(request))),
    }),
  );
}
