// The Swedish decoupled authorization (spec rows 9-11): start an e-ID order for a scope, then poll the
// token URL the gateway handed out, waiting the sleep_time it answered before the first poll and between
// polls, until the PSU completes or cancels; or cancel the order.
import type {
  DecoupledCancelled,
  DecoupledComplete,
  DecoupledInitAnswer,
  DecoupledPollAnswer,
} from './answers.ts';
import { expectOk, type HttpAnswer, type HttpCaller, TppError } from './http.ts';

export type Sleep = (ms: number) => Promise<void>;

/** The default wait: a real timer. */
export const timerSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls at most this many times by default: the e-ID order lives 3 minutes, polled 2 s apart. */
const DEFAULT_MAX_POLLS = 100;

export interface DecoupledStartOptions {
  /** true (default): the PSU's e-ID app on this device, an auto_start_token; false: a qr_code. */
  readonly sameDevice?: boolean;
}

export interface DecoupledWaitOptions {
  /** How to wait sleep_time; a real timer unless given (tests inject one, a UI may show progress). */
  readonly sleep?: Sleep;
  /** Gives up after this many polls (default 100). */
  readonly maxPolls?: number;
  /** Told of every poll's answer, numbered from 1. */
  readonly onPoll?: (answer: HttpAnswer<DecoupledPollAnswer>, poll: number) => void;
}

/** How a decoupled authorization ended: the PSU's tokens, or the PSU's refusal. */
export type DecoupledFinal = DecoupledComplete | DecoupledCancelled;

export class DecoupledApi {
  constructor(private readonly caller: HttpCaller) {}

  /** POST /decoupled/eid/initAuthorization/2.0 for `PIS:<paymentId or basketId>` or `AIS:<consentId>`. */
  start(scope: string, options: DecoupledStartOptions = {}): Promise<HttpAnswer<DecoupledInitAnswer>> {
    return this.caller.request<DecoupledInitAnswer>('POST', '/decoupled/eid/initAuthorization/2.0', {
      json: {
        client_id: this.caller.clientId,
        scope,
        psu_client_ip: this.caller.psuIpAddress,
        bisa_same_device: options.sameDevice ?? true,
      },
    });
  }

  /** One poll of the session's token URL (an empty JSON object, spec row 10). */
  poll(session: DecoupledInitAnswer): Promise<HttpAnswer<DecoupledPollAnswer>> {
    return this.caller.request<DecoupledPollAnswer>('POST', session._links.token.href, { json: {} });
  }

  /** Cancels the session's e-ID order (spec row 11). */
  cancel(session: DecoupledInitAnswer): Promise<HttpAnswer<unknown>> {
    return this.caller.request('POST', session._links.cancel.href, { json: {} });
  }

  /**
   * Polls until the result is no longer IN_PROGRESS, never sooner than the sleep_time last answered
   * (the gateway counts early polls and ends the session after too many). An error answer (400
   * `intent_expired`, `mbid_max_polling`, ...) is a TppError.
   */
  async waitForResult(
    session: DecoupledInitAnswer,
    options: DecoupledWaitOptions = {},
  ): Promise<DecoupledFinal> {
    const sleep = options.sleep ?? timerSleep;
    const maxPolls = options.maxPolls ?? DEFAULT_MAX_POLLS;
    let wait = session.sleep_time;
    for (let poll = 1; poll <= maxPolls; poll += 1) {
      await sleep(wait);
      const answer = await this.poll(session);
      options.onPoll?.(answer, poll);
      const body = expectOk(answer, 'decoupled token poll');
      if (body.result !== 'IN_PROGRESS') return body;
      wait = body.sleep_time ?? wait;
    }
    throw new Error(`decoupled authorization still IN_PROGRESS after ${maxPolls} polls`);
  }

  /** Start and poll to the end: the PSU's tokens; a refusal (USER_CANCEL) or an error is a TppError. */
  async authorize(
    scope: string,
    options: DecoupledStartOptions & DecoupledWaitOptions = {},
  ): Promise<DecoupledComplete> {
    const session = expectOk(await this.start(scope, options), 'decoupled initAuthorization');
    const final = await this.waitForResult(session, options);
    if (final.result !== 'COMPLETE') throw new TppError('decoupled authorization', 200, final);
    return final;
  }
}
