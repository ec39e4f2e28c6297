// Subscribing to status notifications at a resource's creation (issue 41): TPP-Notification-URI and
// TPP-Notification-Content-Preferred checked against the mode's rules before anything is stored.
import type { App } from '../../domain/apps.ts';
import { ApiError } from '../../domain/errors.ts';
import { type NotificationSubscription, parseContentPreferred } from '../../domain/notifications.ts';
import type { NotificationTargets } from '../shared/policy.ts';
import { isLoopback, isRefusedAddress, literalAddress } from './addresses.ts';

/** The two headers as the request sent them. */
export interface SubscriptionHeaders {
  readonly uri: string | undefined;
  readonly contentPreferred: string | undefined;
}

const URI_HEADER = 'TPP-Notification-URI';

/** The longest notification URI taken (a redirect URI's bound). */
const MAX_URI_LENGTH = 2000;

/**
 * The subscription the headers ask for, or undefined without TPP-Notification-URI (a preference alone
 * subscribes to nothing and is refused, as it would otherwise be silently dropped). A URI the mode does
 * not allow is refused with FORMAT_ERROR, which never repeats it.
 */
export function subscriptionOf(
  targets: NotificationTargets,
  app: App,
  headers: SubscriptionHeaders,
): NotificationSubscription | undefined {
  if (headers.uri === undefined) {
    if (headers.contentPreferred === undefined) return undefined;
    throw new ApiError({
      code: 'FORMAT_ERROR',
      path: 'TPP-Notification-Content-Preferred',
      text: `TPP-Notification-Content-Preferred needs a ${URI_HEADER}`,
    });
  }
  const content = parseContentPreferred(headers.contentPreferred);
  if (!content.ok) throw new ApiError(content.message);
  return { uri: checkUri(targets, app, headers.uri), content: content.value };
}

function refuse(text: string): never {
  throw new ApiError({ code: 'FORMAT_ERROR', path: URI_HEADER, text: `${URI_HEADER} ${text}` });
}

function checkUri(targets: NotificationTargets, app: App, uri: string): string {
  let parsed: URL | undefined;
  try {
    parsed = uri.length > MAX_URI_LENGTH || /\s/.test(uri) ? undefined : new URL(uri);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || !targets.protocols.includes(parsed.protocol)) {
    refuse(`must be one absolute ${targets.protocols.join(' or ')} URI`);
  }
  if (parsed.username !== '' || parsed.password !== '' || parsed.hash !== '') {
    refuse('must carry no user, password or fragment');
  }
  const literal = literalAddress(parsed.hostname);
  if (literal !== undefined && isRefusedAddress(literal) && !(targets.loopback && isLoopback(literal))) {
    refuse('must not name a private, loopback, link-local or multicast address');
  }
  if (targets.registeredHostsOnly && !(app.notificationHosts ?? []).includes(parsed.hostname.toLowerCase())) {
    refuse("must be on one of the app's registered notification hosts (onboarding: app.notificationHosts)");
  }
  return parsed.href;
}
