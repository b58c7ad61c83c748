import { ROLES } from '@sched/policy/roles';
import { z } from 'zod';

/** Building blocks of route input schemas (params, query and body). */

/** A positive integer id in a path: "12" -> 12. */
export const idParam = z
  .string()
  .regex(/^[1-9]\d{0,14}$/, 'must be a positive integer')
  .transform(Number)
  .meta({ description: 'positive integer id' });

/** A positive integer id in a JSON body. */
export const idValue = z.int().min(1).max(Number.MAX_SAFE_INTEGER);

const count = (fallback: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be a non-negative integer')
    .transform(Number)
    .pipe(z.int().min(0).max(max))
    .optional()
    .transform((value) => value ?? fallback);

export const MAX_TAKE = 250;

/** `?skip=&take=`: default 0 and 250; take at most 250. */
export const pagination = z.strictObject({
  skip: count(0, 1_000_000_000).meta({ description: 'items to skip (default 0)' }),
  take: count(MAX_TAKE, MAX_TAKE).meta({ description: `items to return (default and at most ${MAX_TAKE})` }),
});

/** A membership role in any case ("admin", "Admin"), returned uppercase. */
export const roleInput = z
  .preprocess((value) => (typeof value === 'string' ? value.toUpperCase() : value), z.enum(ROLES))
  .meta({ description: 'OWNER, ADMIN or MEMBER, in any case' });

/** Trimmed, non-empty, bounded text. */
export const text = (max: number) => z.string().trim().min(1).max(max);

/** A URL-style slug (shared with the admin console). */
export { slug } from '@sched/policy/slugs';

/** Slug from a name: "Sales Team!" -> "sales-team"; empty when the name has no letters or digits. */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100)
    .replace(/-+$/, '');
}
