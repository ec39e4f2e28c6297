// An app's recent notifications and how each delivery went (GET /psd2/v1/notifications): what a TPP
// reads to see why its endpoint got nothing.
import type { App } from '../../domain/apps.ts';
import { apiError } from '../../domain/errors.ts';
import { listNotifications } from '../../store/notifications/listing.ts';
import { requireClientToken, type TokenGrant } from '../access/tokens.ts';
import type { ServiceContext } from '../shared/context.ts';

export interface NotificationView {
  readonly notificationId: string;
  readonly resourceType: string;
  readonly resourceId: string;
  readonly uri: string;
  readonly content: string;
  readonly status: string;
  readonly previousStatus?: string;
  readonly state: 'pending' | 'delivered' | 'abandoned';
  readonly createdAt: string;
  readonly deliveredAt?: string;
  readonly nextAttemptAt?: string;
  readonly attempts: readonly {
    readonly attempt: number;
    readonly at: string;
    readonly statusCode?: number;
    readonly error?: string;
    readonly durationMs: number;
  }[];
}

/** The most notifications one call lists, and how many without `limit`. */
export const MAX_LISTED = 100;
const DEFAULT_LISTED = 20;

export async function listAppNotifications(
  context: ServiceContext,
  request: { readonly app: App; readonly grant: TokenGrant; readonly limit: number | undefined },
): Promise<{ notifications: NotificationView[] }> {
  requireClientToken(request.grant, request.app.clientId, ['PIS', 'AIS']);
  if (request.limit !== undefined && !(request.limit >= 1 && request.limit <= MAX_LISTED)) {
    throw apiError('FORMAT_ERROR', `limit must be a whole number from 1 to ${MAX_LISTED}`, 'limit');
  }
  const rows = await listNotifications(context.db, request.app.clientId, request.limit ?? DEFAULT_LISTED);
  return {
    notifications: rows.map((row) => ({
      notificationId: row.notificationId,
      resourceType: row.resourceType,
      resourceId: row.resourceId,
      uri: row.uri,
      content: String(row.body.content),
      status: String(row.body.status),
      ...(typeof row.body.previousStatus === 'string' ? { previousStatus: row.body.previousStatus } : {}),
      state: row.state,
      createdAt: row.createdAt,
      ...(row.deliveredAt === null ? {} : { deliveredAt: row.deliveredAt }),
      ...(row.nextAttemptAt === null ? {} : { nextAttemptAt: row.nextAttemptAt }),
      attempts: row.attempts.map((attempt) => ({
        attempt: attempt.attempt,
        at: attempt.at,
        ...(attempt.statusCode === null ? {} : { statusCode: attempt.statusCode }),
        ...(attempt.error === null ? {} : { error: attempt.error }),
        durationMs: attempt.durationMs,
      })),
    })),
  };
}
