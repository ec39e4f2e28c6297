// raw(work)'s payment routes: a single payment and a basket initiated (kept in the Map, and by `keep`
// before the answer when a variant stores them), the status read, and the execution (in the Map, or as
// PostgreSQL's booking when flows are kept).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fail, isObject, parseJson, send, UUID } from './http.ts';
import { paymentProblem } from './validation.ts';
import type { RawData, RawFlows, RawInitiation, WorkCall } from './work-data.ts';

/** PUT .../{paymentId} with flows kept: the booking in PostgreSQL, the PSU token checked by its statement. */
export async function executeKept(
  request: IncomingMessage,
  response: ServerResponse,
  parts: readonly string[],
  bearer: string,
  flows: RawFlows,
): Promise<void> {
  const clientId = request.headers['x-gateway-client-id'] as string;
  const paymentId = parts.at(-1)!;
  const outcome = UUID.test(paymentId) ? await flows.execute(paymentId, bearer, clientId) : 'not waiting';
  if (outcome === 'token') fail(response, 401, 'TOKEN_INVALID', 'The token is not valid');
  else if (outcome === 'not waiting')
    fail(response, 400, 'PAYMENT_FAILED', 'The payment is not awaiting execution');
  else send(response, 200, { paymentId, transactionStatus: outcome });
}

/** POST .../signing-basket: every payment checked, then each gets an id (RCVD). */
export function initiateBasket({ response, text }: WorkCall, data: RawData): void {
  const body = parseJson(text);
  const payments = isObject(body) ? body.payments : undefined;
  if (!Array.isArray(payments) || payments.length === 0 || payments.length > 100) {
    fail(response, 400, 'FORMAT_ERROR', 'payments must be a list of 1 to 100 payments');
    return;
  }
  const answered = [];
  for (const [index, payment] of payments.entries()) {
    const problem =
      paymentProblem(payment) ??
      (typeof (payment as Record<string, unknown>).paymentProduct === 'string'
        ? undefined
        : 'paymentProduct is required');
    if (problem !== undefined) {
      fail(response, 400, 'FORMAT_ERROR', `payments[${index}]: ${problem}`);
      return;
    }
    const paymentId = randomUUID();
    data.payments.set(paymentId, 'RCVD');
    answered.push({
      paymentId,
      tppPaymentReference: (payment as Record<string, unknown>).tppPaymentReference,
    });
  }
  send(response, 200, { payments: answered, signingBaskedId: randomUUID() });
}

/** POST .../single/{product}: the payment checked, kept (ACTC) and answered with its links. */
export async function initiatePayment(
  { request, response, text, parts, origin }: WorkCall,
  data: RawData,
  keep: ((initiation: RawInitiation) => Promise<void>) | undefined,
): Promise<void> {
  const body = parseJson(text);
  const problem = paymentProblem(body);
  if (problem !== undefined) {
    fail(response, 400, 'FORMAT_ERROR', problem);
    return;
  }
  const paymentId = randomUUID();
  data.payments.set(paymentId, 'ACTC');
  const product = parts.at(-1)!;
  const authorize = new URL('/oauth2/authorize/1.0', origin);
  authorize.search = new URLSearchParams({ response_type: 'code', scope: `PIS:${paymentId}` }).toString();
  const answer = {
    paymentId,
    transactionStatus: 'ACTC',
    scaMethods: [
      {
        authenticationType: 'OAUTH',
        name: 'redirect',
        _links: { authorization: { href: authorize.href } },
      },
    ],
    _links: {
      self: { href: `${origin}/psd2/v1/payments/${product}/${paymentId}` },
      status: { href: `${origin}/psd2/v1/payments/${product}/${paymentId}/status` },
    },
  };
  if (keep !== undefined) {
    const clientId = request.headers['x-gateway-client-id'] as string;
    const requestId = request.headers['tpp-request-id'] as string;
    await keep({ clientId, requestId, paymentId, body, answer });
  }
  send(response, 200, answer);
}

/** GET .../{paymentId}/status: from the Map, or from the payment's row when flows are kept. */
export async function paymentStatus(
  { request, response, parts }: WorkCall,
  data: RawData,
  flows: RawFlows | undefined,
): Promise<void> {
  const paymentId = parts.at(-2)!;
  const status = !UUID.test(paymentId)
    ? undefined
    : flows === undefined
      ? data.payments.get(paymentId)
      : await flows.status(paymentId, request.headers['x-gateway-client-id'] as string);
  if (status === undefined) fail(response, 404, 'RESOURCE_UNKNOWN', 'No such payment');
  else send(response, 200, { paymentId, transactionStatus: status });
}

/** PUT .../{paymentId} on the Map: ACTC to ACCC. */
export function executePayment({ response, parts }: WorkCall, data: RawData): void {
  const paymentId = parts.at(-1)!;
  if (data.payments.get(paymentId) !== 'ACTC') {
    fail(response, 400, 'PAYMENT_FAILED', 'The payment is not awaiting execution');
    return;
  }
  data.payments.set(paymentId, 'ACCC');
  send(response, 200, { paymentId, transactionStatus: 'ACCC' });
}
