// On every AIS/PIS call: under mutual TLS (live) the app belongs to the TPP of the certificate
// presented, the certificate carries the role of the interface, and the app is subscribed to the
// product of the path; without it (the sandbox) an app registered through onboarding is still held to
// its subscriptions.
import type { PeerIdentity, Qwac } from '../../certificates/qwac.ts';
import type { App } from '../../domain/apps.ts';
import { ApiError, apiError } from '../../domain/errors.ts';
import type { TppScope } from '../../domain/psp-roles.ts';
import { findCertificate, listSubscriptions } from '../../store/tpps-repository.ts';
import type { ServiceContext } from '../shared/context.ts';

export interface LiveAccessRule {
  /** The role the certificate must carry (one of them, when several are named). */
  readonly role: TppScope | readonly TppScope[];
  /** The products of the path; a subscription to any one of them is enough. */
  readonly products: readonly string[];
}

/** The TPP's certificate, or the refusal that its absence or fault calls for. */
export function requireQwac(peer: PeerIdentity): Qwac {
  if (peer.kind === 'qwac') return peer.qwac;
  if (peer.kind === 'refused') throw apiError(peer.code, peer.text);
  throw apiError('CERTIFICATE_MISSING', 'A qualified certificate (QWAC or OBWAC) must be presented in TLS');
}

/**
 * The connection's certificate as one of a TPP's set, if it is: registered (enrolled or added with PUT),
 * not removed by the bank, and not expired by the service's clock (TLS checks the expiry against the
 * machine's; a revoked one never gets here: TLS refuses it against TLS_CRL).
 */
export async function registeredCertificate(
  context: ServiceContext,
  peer: PeerIdentity,
): Promise<{ readonly tppId: string; readonly thumbprint: string } | undefined> {
  if (peer.kind !== 'qwac' || expired(context, peer.qwac)) return undefined;
  const thumbprint = peer.qwac.thumbprint;
  const cached = context.caches.certificates.get(thumbprint);
  if (cached !== undefined) return cached;
  const row = await findCertificate(context.db, thumbprint);
  if (row === undefined) return undefined;
  const certificate = { tppId: row.tppId, thumbprint };
  context.caches.certificates.set(thumbprint, certificate);
  return certificate;
}

function expired(context: ServiceContext, qwac: Qwac): boolean {
  return qwac.notAfter.getTime() <= context.clock().getTime();
}

/** What a token, a refresh token or a decoupled session was issued over (RFC 8705). */
export interface CertificateBinding {
  /** The certificate's thumbprint; null: issued without mutual TLS, bound to none. */
  readonly thumbprint: string | null;
  /** The TPP whose certificate it was (null: none known). */
  readonly tppId: string | null;
}

/**
 * RFC 8705 over a TPP's certificate set: what was issued over one of a TPP's certificates may be used over
 * any certificate of the TPP's set now (the one it was issued over, or one added later with PUT), so that a
 * renewal strands nothing; never over a certificate that left the set (removed, expired, revoked), one that
 * never entered it, or another TPP's.
 */
export async function presentsBoundCertificate(
  context: ServiceContext,
  binding: CertificateBinding,
  peer: PeerIdentity,
): Promise<boolean> {
  if (binding.thumbprint === null) return true;
  const presented = await registeredCertificate(context, peer);
  if (presented === undefined) return false;
  return binding.tppId === null
    ? presented.thumbprint === binding.thumbprint
    : presented.tppId === binding.tppId;
}

/** An app's product subscriptions. */
async function subscriptionsOf(context: ServiceContext, clientId: string): Promise<readonly string[]> {
  const cached = context.caches.subscriptions.get(clientId);
  if (cached !== undefined) return cached;
  const products = await listSubscriptions(context.db, clientId);
  context.caches.subscriptions.set(clientId, products);
  return products;
}

/** The certificate's TPP, when the certificate is registered (enrolled or added with PUT). */
async function tppOfCertificate(context: ServiceContext, peer: PeerIdentity): Promise<string> {
  if (expired(context, requireQwac(peer)))
    throw apiError('CERTIFICATE_EXPIRED', 'The certificate has expired');
  const certificate = await registeredCertificate(context, peer);
  if (certificate === undefined) {
    throw apiError(
      'CERTIFICATE_INVALID',
      'The certificate is not registered: enroll with POST /psd2/v1/third-parties',
    );
  }
  return certificate.tppId;
}

export async function checkLiveAccess(
  context: ServiceContext,
  peer: PeerIdentity,
  app: App,
  rule: LiveAccessRule,
): Promise<void> {
  const tppId = await tppOfCertificate(context, peer);
  if (app.tppId !== tppId)
    throw apiError('CERTIFICATE_INVALID', 'The certificate does not belong to the TPP of this app');
  const qwac = requireQwac(peer);
  const roles: readonly TppScope[] = typeof rule.role === 'string' ? [rule.role] : rule.role;
  const allowed = roles.some((role) => qwac.scopes.includes(role));
  if (!allowed)
    throw apiError('ROLE_INVALID', `This interface needs the ${roles.join(' or ')} role in the certificate`);
  await requireSubscription(context, app, rule.products);
}

/**
 * An app registered through onboarding (it has a TPP) may use only the products it is subscribed to,
 * in the sandbox as live; a seeded sandbox app, registered by nobody, may use every product.
 */
export async function requireSubscription(
  context: ServiceContext,
  app: App,
  products: readonly string[],
): Promise<void> {
  if (app.tppId === null || app.tppId === undefined) return;
  const subscribed = await subscriptionsOf(context, app.clientId);
  if (!products.some((product) => subscribed.includes(product))) {
    throw new ApiError({
      code: 'PRODUCT_INVALID',
      text: `The app is not subscribed to ${products.join(' or ')}`,
    });
  }
}

/** Every payment product name (execute, status and cancel act on payments of any of them). */
export const PAYMENT_PRODUCTS_ALL = [
  'payments',
  'payments-gb',
  'payments-lu',
  'payments-se-private',
  'payments-se-corporate',
] as const;
