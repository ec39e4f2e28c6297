// Calls of the decoupled flow through inject().
import type { Gateway } from './gateway.ts';
import { call } from './http.ts';

export function initDecoupled(gateway: Gateway, body: Record<string, unknown>) {
  return call(gateway.app, 'POST', '/decoupled/eid/initAuthorization/2.0', {
    headers: { accept: 'application/json', host: 'gateway.test' },
    json: body,
  });
}

/** POSTs {} to a token or cancel href of an init answer (made relative to the gateway). */
export function postLink(gateway: Gateway, href: string) {
  const url = new URL(href);
  return call(gateway.app, 'POST', url.pathname.slice(gateway.config.basePath.length) + url.search, {
    headers: { accept: 'application/json' },
    json: {},
  });
}

export interface InitAnswer {
  auto_start_token?: string;
  qr_code?: string;
  sleep_time: number;
  _links: { token: { href: string }; cancel: { href: string } };
}
