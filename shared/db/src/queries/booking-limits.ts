import { type AuditContext, recordAuditEvent } from './audit-log.ts';
import type { Knex } from 'knex';

/** A user's booking limits (null: no limit for that period). */
export interface BookingLimits {
  perDay: number | null;
  perWeek: number | null;
  perMonth: number | null;
  perYear: number | null;
}

export const NO_BOOKING_LIMITS: BookingLimits = Object.freeze({
  perDay: null,
  perWeek: null,
  perMonth: null,
  perYear: null,
});

interface BookingLimitsRow {
  per_day: number | null;
  per_week: number | null;
  per_month: number | null;
  per_year: number | null;
}

const num = (value: number | string | null): number | null => (value === null ? null : Number(value));

const mapLimits = (row: BookingLimitsRow | undefined): BookingLimits =>
  row
    ? {
        perDay: num(row.per_day),
        perWeek: num(row.per_week),
        perMonth: num(row.per_month),
        perYear: num(row.per_year),
      }
    : { ...NO_BOOKING_LIMITS };

/** The user's booking limits; all four keys always present (null when unset or no row). */
export async function getBookingLimits(knex: Knex, userId: number): Promise<BookingLimits> {
  if (!Number.isSafeInteger(userId)) return { ...NO_BOOKING_LIMITS };
  const row = (await knex('booking_limits')
    .where({ user_id: userId })
    .first('per_day', 'per_week', 'per_month', 'per_year')) as BookingLimitsRow | undefined;
  return mapLimits(row);
}

const COLUMN = {
  perDay: 'per_day',
  perWeek: 'per_week',
  perMonth: 'per_month',
  perYear: 'per_year',
} as const satisfies Record<keyof BookingLimits, string>;

/**
 * Merge update (PATCH semantics): an absent (undefined) key leaves that limit alone, null removes
 * it, a number sets it. One upsert statement, so concurrent patches of different keys both land.
 * Returns the limits after the change.
 */
export async function patchBookingLimits(
  knex: Knex,
  userId: number,
  patch: Partial<BookingLimits>,
  audit?: AuditContext,
): Promise<BookingLimits> {
  const changes: Record<string, number | null> = {};
  for (const key of Object.keys(COLUMN) as Array<keyof BookingLimits>) {
    const value = patch[key];
    if (value !== undefined) changes[COLUMN[key]] = value;
  }
  if (Object.keys(changes).length === 0) return getBookingLimits(knex, userId);
  // The before value of the audit event is read under the row lock, in the change's transaction.
  return knex.transaction(async (trx) => {
    const before = mapLimits(
      (await trx('booking_limits')
        .where({ user_id: userId })
        .forUpdate()
        .first('per_day', 'per_week', 'per_month', 'per_year')) as BookingLimitsRow | undefined,
    );
    const [row] = (await trx('booking_limits')
      .insert({ user_id: userId, ...changes, updated_at: trx.fn.now() })
      .onConflict('user_id')
      .merge({ ...changes, updated_at: trx.fn.now() })
      .returning(['per_day', 'per_week', 'per_month', 'per_year'])) as BookingLimitsRow[];
    const after = mapLimits(row);
    await recordAuditEvent(trx, audit, {
      action: 'booking_limits.updated',
      targetType: 'booking_limits',
      targetId: userId,
      before,
      after,
    });
    return after;
  });
}

/** Removes every limit of the user (DELETE /v2/me/booking-limits). */
export async function clearBookingLimits(knex: Knex, userId: number, audit?: AuditContext): Promise<void> {
  await knex.transaction(async (trx) => {
    const [row] = (await trx('booking_limits')
      .where({ user_id: userId })
      .delete()
      .returning(['per_day', 'per_week', 'per_month', 'per_year'])) as BookingLimitsRow[];
    if (!row) return;
    await recordAuditEvent(trx, audit, {
      action: 'booking_limits.cleared',
      targetType: 'booking_limits',
      targetId: userId,
      before: mapLimits(row),
      after: { ...NO_BOOKING_LIMITS },
    });
  });
}

/** The limits of several users at once (team hosts); users without a row get all nulls. */
export async function getBookingLimitsOf(
  knex: Knex,
  userIds: readonly number[],
): Promise<Map<number, BookingLimits>> {
  const result = new Map<number, BookingLimits>(userIds.map((id) => [id, { ...NO_BOOKING_LIMITS }]));
  if (userIds.length === 0) return result;
  const rows = (await knex('booking_limits')
    .whereIn('user_id', [...userIds])
    .select('user_id', 'per_day', 'per_week', 'per_month', 'per_year')) as Array<
    BookingLimitsRow & { user_id: number | string }
  >;
  for (const row of rows) result.set(Number(row.user_id), mapLimits(row));
  return result;
}

/**
 * True when the user has an accepted membership of an organization (a membership row with
 * organization_id set). Only such users may read or set booking limits (403 otherwise).
 */
export async function isOrganizationMember(knex: Knex, userId: number): Promise<boolean> {
  const row = await knex('memberships')
    .where({ user_id: userId, accepted: true })
    .whereNotNull('organization_id')
    .first('id');
  return row !== undefined;
}
