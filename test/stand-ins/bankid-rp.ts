// A stand-in for the national e-ID's relying-party API (BankID RP API v6.0) for tests: a real HTTPS
// server on loopback that requires the relying party's client certificate (issued by a test CA it
// trusts), checks requests as the published contract does (POST, Content-Type exactly
// application/json, the v6 fields and no others, endUserIp, userVisibleData in base64 UTF-8, a
// 12-digit requirement.personalNumber), answers {errorCode, details} refusals, and plays each personal
// number's orders as a test scripts them. It can be told to fail its next calls, to prove retries.
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { isIP } from 'node:net';
import { createCa, issueQwac, issueServerCertificate } from '../../src/certificates/issue.ts';

/** How a personal number's orders go: pending for some collects, then complete (signed by someone) or failed. */
export interface Script {
  readonly pendingCollects: number;
  /** The hint of the pending collects after the first (outstandingTransaction); default userSign. */
  readonly pendingHint?: string;
  readonly outcome: { readonly signedBy: string } | { readonly failed: string };
}

/**
 * maintenance (503), internalError (500), badGateway (a proxy's 502 page): answered without processing.
 * stall: never answered, not processed. reset: the connection dropped, not processed. lostAnswer:
 * processed, then the connection dropped instead of the answer.
 */
export type Fault = 'maintenance' | 'internalError' | 'badGateway' | 'stall' | 'reset' | 'lostAnswer';

export interface RpOrder {
  readonly orderRef: string;
  readonly autoStartToken: string;
  readonly qrStartToken: string;
  readonly qrStartSecret: string;
  readonly personalNumber: string;
  readonly endUserIp: string;
  status: 'pending' | 'failed' | 'complete';
  hintCode: string;
  collects: number;
  /** Who signed, once complete. */
  signedBy?: string;
}

export interface BankIdRp {
  /** The API's base URL (…/rp/v6.0), as BANKID_URL gives it. */
  readonly url: string;
  /** The issuer of the stand-in's server certificate, for the relying party to trust. */
  readonly serverCa: string;
  /** The relying party's certificate and key, from the CA the stand-in trusts. */
  readonly client: { readonly cert: string; readonly key: string };
  /** A relying-party certificate and key from a CA the stand-in does not trust. */
  readonly strangerClient: { readonly cert: string; readonly key: string };
  /** Every request that reached the API, faulted ones included: path and body as parsed. */
  readonly requests: { readonly path: string; readonly body: unknown }[];
  readonly orders: Map<string, RpOrder>;
  script(personalNumber: string, script: Script): void;
  /** The next `count` calls of `path` meet the fault. */
  failNext(path: '/sign' | '/collect' | '/cancel', count: number, fault: Fault): void;
  /** Forgets the faults not yet met. */
  clearFaults(): void;
  /** The latest order of a personal number. */
  orderOf(personalNumber: string): RpOrder | undefined;
  close(): Promise<void>;
}

const BASE = '/rp/v6.0';
const START_FIELDS = [
  'endUserIp',
  'userVisibleData',
  'userNonVisibleData',
  'userVisibleDataFormat',
  'requirement',
  'returnUrl',
  'returnRisk',
  'app',
  'web',
];

class Refusal {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    readonly details: string,
  ) {}
}
const invalid = (details: string) => new Refusal(400, 'invalidParameters', details);

export async function startBankIdRp(): Promise<BankIdRp> {
  const [serverCa, rpCa, strangerCa] = await Promise.all([
    createCa('CN=Test e-ID server CA,O=e-ID stand-in,C=SE'),
    createCa('CN=Test e-ID RP CA,O=e-ID stand-in,C=SE'),
    createCa('CN=Someone else,O=Elsewhere,C=SE'),
  ]);
  const rpParams = { organizationIdentifier: 'PSDSE-FINA-44059', organizationName: 'The bank', roles: [] };
  const [server, rp, stranger] = await Promise.all([
    issueServerCertificate(serverCa),
    issueQwac(rpCa, rpParams),
    issueQwac(strangerCa, rpParams),
  ]);
  const orders = new Map<string, RpOrder>();
  const scripts = new Map<string, Script>();
  const faults = new Map<string, Fault[]>();
  const requests: { path: string; body: unknown }[] = [];

  function start(body: Record<string, unknown>, sign: boolean): object {
    const unknown = Object.keys(body).find((key) => !START_FIELDS.includes(key));
    if (unknown !== undefined) throw invalid(`Unknown parameter: ${unknown}`);
    const { endUserIp, userVisibleData, userVisibleDataFormat, requirement } = body;
    if (typeof endUserIp !== 'string' || isIP(endUserIp) === 0) throw invalid('Invalid endUserIp');
    if (userVisibleData !== undefined || sign) visibleText(userVisibleData, sign ? 40_000 : 1_500);
    if (userVisibleDataFormat !== undefined && userVisibleDataFormat !== 'simpleMarkdownV1')
      throw invalid('Invalid userVisibleDataFormat');
    const personalNumber = personalNumberOf(requirement);
    const pending = [...orders.values()].find(
      (order) => order.personalNumber === personalNumber && order.status === 'pending',
    );
    if (pending !== undefined) {
      // The contract: the order in progress is aborted, and no order is created.
      Object.assign(pending, { status: 'failed', hintCode: 'cancelled' });
      throw new Refusal(400, 'alreadyInProgress', 'Order already in progress for pno');
    }
    const order: RpOrder = {
      orderRef: randomUUID(),
      autoStartToken: randomUUID(),
      qrStartToken: randomUUID(),
      qrStartSecret: randomUUID(),
      personalNumber,
      endUserIp,
      status: 'pending',
      hintCode: 'outstandingTransaction',
      collects: 0,
    };
    orders.set(order.orderRef, order);
    const { orderRef, autoStartToken, qrStartToken, qrStartSecret } = order;
    return { orderRef, autoStartToken, qrStartToken, qrStartSecret };
  }

  function collect(order: RpOrder): object {
    order.collects += 1;
    const script = scripts.get(order.personalNumber);
    if (order.status === 'pending' && script !== undefined) {
      if (order.collects > script.pendingCollects) {
        if ('failed' in script.outcome)
          Object.assign(order, { status: 'failed', hintCode: script.outcome.failed });
        else Object.assign(order, { status: 'complete', hintCode: '', signedBy: script.outcome.signedBy });
      } else if (order.collects > 1) {
        order.hintCode = script.pendingHint ?? 'userSign';
      }
    }
    const { orderRef, status, hintCode } = order;
    if (status !== 'complete') return { orderRef, status, hintCode };
    const { signedBy } = order;
    return {
      orderRef,
      status,
      completionData: {
        user: {
          personalNumber: signedBy,
          name: 'Tolvan Tolvansson',
          givenName: 'Tolvan',
          surname: 'Tolvansson',
        },
        device: { ipAddress: order.endUserIp, uhi: 'OZvYM9VvyiAmG7NA5jU5zqGcVpo=' },
        bankIdIssueDate: '2020-02-01',
        signature: Buffer.from('<Signature/>').toString('base64'),
        ocspResponse: Buffer.from('ocsp').toString('base64'),
      },
    };
  }

  function handle(path: string, body: Record<string, unknown>): object {
    if (path === '/sign' || path === '/auth') return start(body, path === '/sign');
    const { orderRef } = body;
    if (typeof orderRef !== 'string' || Object.keys(body).length !== 1) throw invalid('Invalid orderRef');
    const order = orders.get(orderRef);
    if (order === undefined) throw invalid('No such order');
    if (path === '/collect') return collect(order);
    if (order.status !== 'pending') throw invalid('Order not pending');
    orders.delete(orderRef);
    return {};
  }

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const answer = (status: number, body: object): void => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const refuse = ({ status, errorCode, details }: Refusal): void => answer(status, { errorCode, details });
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const path = (request.url ?? '').startsWith(`${BASE}/`) ? request.url!.slice(BASE.length) : '';
    if (!['/sign', '/auth', '/collect', '/cancel'].includes(path))
      return refuse(new Refusal(404, 'notFound', 'No such endpoint'));
    if (request.method !== 'POST') return refuse(new Refusal(405, 'methodNotAllowed', 'POST only'));
    if (request.headers['content-type'] !== 'application/json')
      return refuse(new Refusal(415, 'unsupportedMediaType', 'Content-Type must be application/json'));
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return refuse(invalid('Invalid JSON'));
    }
    requests.push({ path, body });
    const fault = faults.get(path)?.shift();
    if (fault === 'maintenance') return refuse(new Refusal(503, 'maintenance', 'Service unavailable'));
    if (fault === 'internalError') return refuse(new Refusal(500, 'internalError', 'Internal error'));
    if (fault === 'badGateway') {
      response.writeHead(502, { 'content-type': 'text/html' }).end('<h1>502 Bad Gateway</h1>');
      return;
    }
    if (fault === 'stall') return;
    if (fault === 'reset') return void request.socket.destroy();
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return refuse(invalid('Invalid request'));
    let result: object;
    try {
      result = handle(path, body as Record<string, unknown>);
    } catch (error) {
      if (error instanceof Refusal) return refuse(error);
      throw error;
    }
    if (fault === 'lostAnswer') return void request.socket.destroy();
    answer(200, result);
  }

  const https = createServer(
    {
      key: server.keyPem,
      cert: server.certificatePem,
      ca: rpCa.certificatePem,
      requestCert: true,
      rejectUnauthorized: true,
    },
    (request, response) => {
      serve(request, response).catch((error: unknown) => {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ errorCode: 'internalError', details: String(error) }));
      });
    },
  );
  await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
  const { port } = https.address() as { port: number };

  return {
    url: `https://127.0.0.1:${port}${BASE}`,
    serverCa: serverCa.certificatePem,
    client: { cert: rp.certificatePem, key: rp.keyPem },
    strangerClient: { cert: stranger.certificatePem, key: stranger.keyPem },
    requests,
    orders,
    script: (personalNumber, script) => void scripts.set(personalNumber, script),
    failNext(path, count, fault) {
      faults.set(path, [...(faults.get(path) ?? []), ...Array<Fault>(count).fill(fault)]);
    },
    clearFaults: () => faults.clear(),
    orderOf: (personalNumber) =>
      [...orders.values()].filter((o) => o.personalNumber === personalNumber).at(-1),
    close: () =>
      new Promise<void>((resolve) => {
        https.close(() => resolve());
        https.closeAllConnections();
      }),
  };
}

/** userVisibleData: base64 of UTF-8 text, 1 to `max` characters. */
function visibleText(value: unknown, max: number): void {
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    value.length > max ||
    !/^[A-Za-z0-9+/]*={0,2}$/.test(value) ||
    value.length % 4 !== 0
  ) {
    throw invalid('Invalid userVisibleData');
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(value, 'base64'));
  } catch {
    throw invalid('Invalid userVisibleData');
  }
}

/** requirement.personalNumber: 12 digits; an order without one can be picked up by anyone. */
function personalNumberOf(requirement: unknown): string {
  if (requirement === undefined) return `anyone-${randomBytes(4).toString('hex')}`;
  const personalNumber = (requirement as { personalNumber?: unknown } | null)?.personalNumber;
  if (
    typeof requirement !== 'object' ||
    typeof personalNumber !== 'string' ||
    !/^\d{12}$/.test(personalNumber)
  )
    throw invalid('Invalid requirement.personalNumber');
  return personalNumber;
}
