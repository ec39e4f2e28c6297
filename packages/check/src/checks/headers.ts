// The common headers (spec "Endpoints": X-Gateway-Client-Id, TPP-Request-ID, TPP-Transaction-ID
// required, Authorization: Bearer), the Country header (spec row 6), the corporate headers (spec
// Errors 3), and the echo of the TPP's ids on every answer (API-NOTES "Headers").
import { type Check, type CheckContext, Deviation } from '../check.ts';
import { expectApiError } from '../error-shapes.ts';
import { shown } from '../expect.ts';
import {
  corporateBody,
  countryOf,
  GENERAL,
  OTHER_BANK,
  OWN_BANK,
  otherBankBody,
  SE_V2_CORPORATE,
  SE_V2_PRIVATE,
  SEPA,
  sepaBody,
} from '../fixtures.ts';
import { tppHeaders } from '../flow.ts';
import { type Answer, send } from '../http.ts';

const FORMAT_ERROR = { status: 400, codes: ['FORMAT_ERROR'] } as const;
const TOKEN_REFUSED = { status: 401, codes: ['TOKEN_INVALID', 'TOKEN_UNKNOWN'] } as const;

/** A valid Sweden v2 initiation with one header left out or replaced. */
function initiateWith(
  context: CheckContext,
  change: (headers: Record<string, string>) => void,
  path = `${SE_V2_PRIVATE}/${OTHER_BANK}`,
  body: unknown = otherBankBody(context.options),
): Promise<Answer> {
  const headers = tppHeaders(context, context.fact('clientToken'));
  change(headers);
  return send(context, { method: 'POST', path, headers, json: body });
}

function missingHeader(name: string, ref: string): Check {
  return {
    id: `headers.missing-${name.toLowerCase().replace(/^x-gateway-|^tpp-/, '')}`,
    title: `an initiation without ${name} is refused`,
    ref,
    needs: ['clientToken'],
    async run(context) {
      expectApiError(
        await initiateWith(context, (headers) => delete headers[name]),
        name === 'Authorization' ? TOKEN_REFUSED : FORMAT_ERROR,
      );
    },
  };
}

function expectEcho(answer: Answer, sent: Record<string, string>): void {
  for (const name of ['TPP-Request-ID', 'TPP-Transaction-ID']) {
    const echoed = answer.headers.get(name);
    if (echoed !== sent[name])
      throw new Deviation(`${name} echoed as sent`, `${name}: ${shown(echoed ?? undefined)}`);
  }
}

const ERROR_SHAPE = 'API-NOTES Error bodies "400 FORMAT_ERROR"';

export const headerChecks: readonly Check[] = [
  missingHeader(
    'X-Gateway-Client-Id',
    `spec Endpoints "X-Gateway-Client-Id (app-id, required)"; ${ERROR_SHAPE}`,
  ),
  missingHeader(
    'TPP-Request-ID',
    `spec Endpoints "TPP-Request-ID (unique per request, required)"; ${ERROR_SHAPE}`,
  ),
  missingHeader(
    'TPP-Transaction-ID',
    `spec Endpoints "TPP-Transaction-ID (unique per transaction, required)"; ${ERROR_SHAPE}`,
  ),
  missingHeader(
    'Authorization',
    'spec Endpoints "Authorization: Bearer <ACCESS_TOKEN>"; API-NOTES Error bodies "401 ... TOKEN_INVALID|EXPIRED|UNKNOWN"',
  ),
  {
    id: 'headers.unknown-token',
    title: 'an unknown bearer token is refused',
    ref: 'spec Authentication 5 "Bearer tokens go in Authorization"; API-NOTES Error bodies "401 ... TOKEN_INVALID|EXPIRED|UNKNOWN"',
    needs: ['clientToken'],
    async run(context) {
      const answer = await initiateWith(context, (headers) => {
        headers.Authorization = 'Bearer check-unknown-token-0000000000000000';
      });
      expectApiError(answer, TOKEN_REFUSED);
    },
  },
  {
    id: 'headers.missing-country',
    title: 'a general-API initiation without Country is refused',
    ref: `spec row 6 "Country (required)"; ${ERROR_SHAPE}`,
    needs: ['clientToken'],
    async run(context) {
      const answer = await initiateWith(context, () => {}, `${GENERAL}/${SEPA}`, sepaBody(context.options));
      expectApiError(answer, FORMAT_ERROR);
    },
  },
  {
    id: 'headers.missing-corporate',
    title: "a corporate customer's initiation without the corporate headers is refused",
    ref: `spec Errors 3 "Corporate PSU initiation without PSU-Corporate-ID and PSU-Corporate-ID-Type: required headers missing"; ${ERROR_SHAPE}`,
    needs: ['clientToken'],
    async run(context) {
      const answer = await initiateWith(
        context,
        () => {},
        `${SE_V2_CORPORATE}/${OWN_BANK}`,
        corporateBody(context.options),
      );
      expectApiError(answer, FORMAT_ERROR);
    },
  },
  {
    id: 'headers.echo',
    title: 'an answer echoes TPP-Request-ID and TPP-Transaction-ID',
    ref: 'API-NOTES Headers "Every response echoes TPP-Request-ID and TPP-Transaction-ID"',
    needs: ['clientToken', 'generalPayment'],
    async run(context) {
      const headers = {
        ...tppHeaders(context, context.fact('clientToken')),
        Country: countryOf(context.options),
      };
      const answer = await send(context, {
        method: 'GET',
        path: `${GENERAL}/${SEPA}/${encodeURIComponent(context.fact('generalPayment'))}/status`,
        headers,
      });
      expectEcho(answer, headers);
    },
  },
  {
    id: 'headers.echo.error',
    title: 'an error answer echoes TPP-Request-ID and TPP-Transaction-ID too',
    ref: 'API-NOTES Headers "Every response echoes TPP-Request-ID and TPP-Transaction-ID"',
    needs: ['clientToken'],
    async run(context) {
      let sent: Record<string, string> = {};
      const answer = await initiateWith(context, (headers) => {
        delete headers.Authorization;
        sent = headers;
      });
      expectEcho(answer, sent);
    },
  },
];
