// Status notifications to the TPP (issue 41): what a TPP subscribes to with TPP-Notification-URI and
// TPP-Notification-Content-Preferred (Berlin Group NextGenPSD2: `status=SCA,PROCESS,LAST`, any subset).
import type { TppMessage } from './errors.ts';

/** SCA: authorization started, finalised, failed; PROCESS: every status change; LAST: the final one. */
export type NotificationContent = 'SCA' | 'PROCESS' | 'LAST';

const CONTENTS: readonly NotificationContent[] = ['SCA', 'PROCESS', 'LAST'];

/** Without TPP-Notification-Content-Preferred a subscription is to every status change. */
const DEFAULT_CONTENT: readonly NotificationContent[] = ['PROCESS'];

/** A resource's subscription: where its notifications go and which it asked for. */
export interface NotificationSubscription {
  readonly uri: string;
  readonly content: readonly NotificationContent[];
}

type Parsed<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly message: TppMessage };

const HEADER = 'TPP-Notification-Content-Preferred';

/**
 * The preference header's constants in their canonical order: `status=` and a comma-separated list of
 * SCA, PROCESS and LAST, each at most once (blanks around the commas allowed). Anything else is refused
 * rather than guessed at.
 */
export function parseContentPreferred(value: string | undefined): Parsed<readonly NotificationContent[]> {
  if (value === undefined) return { ok: true, value: DEFAULT_CONTENT };
  const refused: Parsed<readonly NotificationContent[]> = {
    ok: false,
    message: {
      code: 'FORMAT_ERROR',
      path: HEADER,
      text: `${HEADER} must be status= and one or more of SCA, PROCESS, LAST separated by commas, each once`,
    },
  };
  const match = /^\s*status\s*=\s*(.+)$/.exec(value);
  if (match === null) return refused;
  const named = match[1]!.split(',').map((part) => part.trim());
  const known = new Set(named);
  if (known.size !== named.length || named.some((name) => !CONTENTS.includes(name as NotificationContent)))
    return refused;
  return { ok: true, value: CONTENTS.filter((content) => known.has(content)) };
}

/** The Berlin Group form of a list of constants: `status=SCA,PROCESS`. */
export function contentHeader(content: readonly NotificationContent[]): string {
  return `status=${content.join(',')}`;
}

/** A subscription as the statements that store a resource take it (null columns: none). */
export function subscriptionColumns(subscription: NotificationSubscription | undefined): {
  notificationUri: string | null;
  notificationContent: string | null;
} {
  return {
    notificationUri: subscription?.uri ?? null,
    notificationContent: subscription === undefined ? null : subscription.content.join(','),
  };
}

/** The initiation answer's `tppNotificationContentPreferred`: the constants accepted, when subscribed. */
export function acceptedContent(subscription: NotificationSubscription | undefined): {
  tppNotificationContentPreferred?: readonly NotificationContent[];
} {
  return subscription === undefined ? {} : { tppNotificationContentPreferred: subscription.content };
}
