import { BadRequestError } from '@sched/kit/errors';
import type { Context } from 'koa';
import { z } from 'zod';

/**
 * `?skip=&take=` of the paged settings and admin lists (the API's query names). Anything but
 * decimal integers in range, or a repeated parameter, is a 400 page: never a database error.
 */
export const PAGE_SIZE = 25;
export const MAX_TAKE = 100;
const MAX_SKIP = 1_000_000_000;

const count = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,10}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.int().min(min).max(max))
    .optional();

// Other query parameters (notice, ...) belong to the page, so they are not refused here.
const pageQuery = z.object({
  skip: count(0, MAX_SKIP),
  take: count(1, MAX_TAKE),
});

export interface Page {
  skip: number;
  take: number;
}

export function pageOf(ctx: Context): Page {
  const parsed = pageQuery.safeParse(ctx.query);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const limits = `skip 0–${MAX_SKIP}, take 1–${MAX_TAKE}`;
    throw new BadRequestError(`Invalid ${String(issue?.path[0] ?? 'page')} (${limits})`);
  }
  return { skip: parsed.data.skip ?? 0, take: parsed.data.take ?? PAGE_SIZE };
}

/** The query string of another page (the default take is left out, so links stay short). */
export function pageQueryString(page: Page, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams(extra);
  if (page.skip > 0) query.set('skip', String(page.skip));
  if (page.take !== PAGE_SIZE) query.set('take', String(page.take));
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * One page of a list read with one row more than shown: that row only tells whether a next page
 * exists, so no count query is needed.
 */
export function pageSlice<T>(rows: readonly T[], page: Page): { items: T[]; hasMore: boolean } {
  return { items: rows.slice(0, page.take), hasMore: rows.length > page.take };
}
