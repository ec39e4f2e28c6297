// What the PSU-facing steps answer: a page to render (api/psu renders it) or a redirect back to the
// TPP's redirect URI with a code or an error (RFC 6749 4.1.2).
import type { PaymentSummary } from '../shared/authorizables.ts';

export type Page =
  | { readonly view: 'login'; readonly appName: string; readonly error?: string; readonly psuId?: string }
  | {
      readonly view: 'consent';
      readonly appName: string;
      readonly payments: readonly PaymentSummary[];
      /** For a consent: what the TPP may read. */
      readonly access?: string | undefined;
    }
  | { readonly view: 'message'; readonly title: string; readonly text: string }
  | EidPage;

/**
 * The e-ID simulator's pages (/psu/eid): each says it is a simulator, worded for the gateway's mode;
 * the form's request is the order being signed.
 */
export type EidPage = EidView & { readonly mode: 'sandbox' | 'live' };

export type EidView =
  | { readonly view: 'eid-start'; readonly error?: string }
  | {
      readonly view: 'eid-identify';
      readonly error?: string;
      /** What the PSU typed as personal number, shown again after a failed attempt. */
      readonly psuId?: string;
    }
  /** What the order signs: shown only to the PSU it is for, once identified. */
  | { readonly view: 'eid-order'; readonly text: string }
  | { readonly view: 'eid-message'; readonly title: string; readonly text: string };

export type PsuAnswer =
  | { readonly kind: 'redirect'; readonly location: string }
  | {
      readonly kind: 'page';
      readonly status: number;
      readonly page: Page;
      /** The form fields every page posts back: the request id and the CSRF token. */
      readonly form?: { readonly request: string; readonly csrf: string };
      /** Set with the first page: the CSRF token's cookie. */
      readonly setCsrfCookie?: string;
    };

export function redirectTo(uri: string, parameters: Record<string, string | undefined>): PsuAnswer {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return { kind: 'redirect', location: url.toString() };
}
