// How the demo shows its progress: one numbered line per step (the request's method and path, the
// status, the fields that matter, the time), detail lines under a step, and which step failed. Paths
// are shown without their query: the authorize query and the decoupled sessionId are nobody's business.
import { expectStatus, type HttpAnswer } from '@psd2-gateway/client';

export class Walk {
  private step = 0;

  constructor(
    /** Every step of the chosen flows, for the counter. */
    readonly total: number,
    private readonly write: (line: string) => void,
  ) {}

  /** The step under way (or the last one), for the failure's one line. */
  get current(): string {
    return `${this.step}/${this.total}`;
  }

  heading(text: string): void {
    this.write(`\n${text}`);
  }

  /** A line under the current step. */
  note(text: string): void {
    this.write(`${' '.repeat(this.counter().length + 1)}${text}`);
  }

  /** One request as a step: printed with its status; any status but `expected` (one of them) ends the walk. */
  async call<T>(
    call: () => Promise<HttpAnswer<T>>,
    expected: number | readonly number[],
    fields: (body: T, answer: HttpAnswer<T>) => string,
  ): Promise<HttpAnswer<T>> {
    this.step += 1;
    const started = performance.now();
    const answer = await call();
    const ok = typeof expected === 'number' ? answer.status === expected : expected.includes(answer.status);
    const shown = ok ? fields(answer.body, answer) : `expected ${String(expected)}`;
    this.write(`${this.counter()} ${requestLine(answer)} -> ${answer.status}  ${shown}${since(started)}`);
    expectStatus(answer, expected, requestLine(answer));
    return answer;
  }

  /** A step made of several requests (a decoupled wait), told through notes, summed up in one line. */
  async action<T>(label: string, action: () => Promise<T>, fields: (result: T) => string): Promise<T> {
    this.step += 1;
    const started = performance.now();
    this.write(`${this.counter()} ${label}`);
    const result = await action();
    this.note(`-> ${fields(result)}${since(started)}`);
    return result;
  }

  private counter(): string {
    return `[${String(this.step).padStart(String(this.total).length)}/${this.total}]`;
  }
}

/** `POST /psd2/v1/consents`: the method and the path under the origin, without the query. */
export function requestLine(answer: Pick<HttpAnswer, 'method' | 'url'>): string {
  return `${answer.method} ${new URL(answer.url).pathname}`;
}

function since(started: number): string {
  return `  (${Math.round(performance.now() - started)} ms)`;
}
