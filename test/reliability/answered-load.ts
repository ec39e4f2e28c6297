// Complete flows under load while a fault comes and goes: each worker initiates a payment, authorizes
// it (the sandbox's redirect, the code for a PSU token) and executes it, and now and then asks for a
// consent. Every call is recorded with when it was asked, how long it took and what it was answered; a
// 503 ends the flow and the worker starts the next, an answer-less call (the process gone, a connection
// dropped) ends the worker. What was acknowledged is what a TPP was told: read back afterwards.
import { randomUUID } from 'node:crypto';
import type { HttpAnswer } from '@psd2-gateway/client';
import { domestic } from '../helpers/payments.ts';
import { INITIATE, type PaymentRecord, PRODUCT, type Served, transportError } from './support.ts';

type Step = 'initiate' | 'authorize' | 'token' | 'execute' | 'consent';

/** What each step answers when it succeeds. */
const SUCCESS: Readonly<Record<Step, number>> = {
  initiate: 200,
  authorize: 302,
  token: 200,
  execute: 200,
  consent: 201,
};

export interface Call {
  readonly step: Step;
  readonly startedAt: number;
  readonly tookMs: number;
  /** The HTTP status, or why there was no answer (the transport error's code). */
  readonly outcome: number | string;
  /** The body, Retry-After and Location of an answer that was not the step's success. */
  readonly refusal?: {
    readonly body: unknown;
    readonly retryAfter: string | null;
    readonly location: string | null;
  };
}

export interface Flow {
  readonly kind: 'payment' | 'consent';
  readonly startedAt: number;
  readonly calls: Call[];
  paymentId?: string;
  /** The execution's answered transactionStatus, when it was answered 200. */
  executed?: string;
  consentId?: string;
  consentStatus?: string;
}

export interface FlowLoad {
  /** Every flow so far (filled while the load runs). */
  readonly flows: readonly Flow[];
  /** Ends the load: every worker finishes its call in flight; resolves when all did. */
  stop(): Promise<void>;
}

class Refused extends Error {}

/** The code a sandbox's authorization redirect carries (an error redirect carries none). */
function codeOf(answer: HttpAnswer<unknown>): string | null {
  const location = answer.headers.get('location');
  return location === null ? null : new URL(location).searchParams.get('code');
}

/**
 * `workers` clients run flows until stop() or `boundMs`; every `consentEvery`-th flow of a worker asks
 * for a consent instead of a payment.
 */
export function startFlowLoad(
  served: Served,
  tokens: { readonly pis: string; readonly ais: string },
  options: { readonly workers: number; readonly boundMs: number; readonly consentEvery: number },
): FlowLoad {
  const flows: Flow[] = [];
  const until = Date.now() + options.boundMs;
  let stopped = false;
  const { client } = served;

  /**
   * One call of a flow, recorded; a refusal (not the step's success, or an answer `usable` refuses)
   * ends the flow.
   */
  async function call<T>(
    flow: Flow,
    step: Step,
    send: () => Promise<HttpAnswer<T>>,
    usable: (answer: HttpAnswer<T>) => boolean = () => true,
  ): Promise<HttpAnswer<T>> {
    const startedAt = Date.now();
    let answer: HttpAnswer<T>;
    try {
      answer = await send();
    } catch (error) {
      flow.calls.push({ step, startedAt, tookMs: Date.now() - startedAt, outcome: transportError(error) });
      throw error;
    }
    const tookMs = Date.now() - startedAt;
    if (answer.status === SUCCESS[step] && usable(answer)) {
      flow.calls.push({ step, startedAt, tookMs, outcome: answer.status });
      return answer;
    }
    const refusal = {
      body: answer.body,
      retryAfter: answer.headers.get('retry-after'),
      location: answer.headers.get('location'),
    };
    flow.calls.push({ step, startedAt, tookMs, outcome: answer.status, refusal });
    throw new Refused();
  }

  async function payment(flow: Flow): Promise<void> {
    const initiated = await call(flow, 'initiate', () =>
      client.initiate(tokens.pis, {
        path: INITIATE,
        body: domestic({ instructedAmount: { currency: 'SEK', amount: '1.25' } }),
      }),
    );
    const paymentId = initiated.body.paymentId;
    flow.paymentId = paymentId;
    const redirect = await call(
      flow,
      'authorize',
      () => client.authorizationRequest(`PIS:${paymentId}`, randomUUID()),
      (answer) => codeOf(answer) !== null,
    );
    const code = codeOf(redirect)!;
    const psuToken = await call(flow, 'token', () => client.exchangeCode(`PIS:${paymentId}`, code));
    const executed = await call(flow, 'execute', () =>
      client.execute(PRODUCT, paymentId, psuToken.body.access_token),
    );
    flow.executed = executed.body.transactionStatus;
  }

  async function consent(flow: Flow): Promise<void> {
    const created = await call(flow, 'consent', () => client.createConsent(tokens.ais));
    flow.consentId = created.body.consentId;
    flow.consentStatus = created.body.consentStatus;
  }

  const worker = async () => {
    for (let n = 1; !stopped && Date.now() < until; n++) {
      const kind = n % options.consentEvery === 0 ? 'consent' : 'payment';
      const flow: Flow = { kind, startedAt: Date.now(), calls: [] };
      flows.push(flow);
      try {
        await (kind === 'payment' ? payment(flow) : consent(flow));
      } catch (error) {
        if (!(error instanceof Refused)) return;
      }
    }
  };
  const running = Promise.all(Array.from({ length: options.workers }, worker));
  return {
    flows,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

/** The payments of the flows as the suite's payment records (readAcknowledged reads them back). */
export function paymentRecords(flows: readonly Flow[]): PaymentRecord[] {
  return flows
    .filter((flow) => flow.paymentId !== undefined)
    .map((flow) => ({
      requestId: '',
      paymentId: flow.paymentId,
      ...(flow.executed === undefined ? {} : { executed: { status: 200, transactionStatus: flow.executed } }),
    }));
}
