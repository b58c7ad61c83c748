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
    ? { perDay: num(row.per_day), perWeek: num(row.per_week), perMonth: num(row.per_month), perYear: num(row.per_year) }
    : { ...NO_BOOKING_LIMITS };

/** The user's booking limits; all four keys always present (null when unset or no row). */
export async function getBookingLimits(knex: Knex, userId: number): Promise<BookingLimits> {
  if (!Number.isSafeInteger(userId)) return { ...NO_BOOKING_LIMITS };
  const row = (await knex('booking_limits')
    .where({ user_id: userId })
    .first('per_day', 'per_week', 'per_month', 'per_year')) as BookingLimitsRow | undefined;
  return mapLimits(row);
}
