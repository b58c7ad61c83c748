/** Helpers to recognise Postgres errors (same shape from pg and PGlite). */

interface PgErrorShape {
  code?: unknown;
  constraint?: unknown;
}

const shape = (error: unknown): PgErrorShape =>
  typeof error === 'object' && error !== null ? (error as PgErrorShape) : {};

/** SQLSTATE 23505; with `constraint`, only a violation of that unique constraint / index. */
export function isUniqueViolation(error: unknown, constraint?: string | readonly string[]): boolean {
  const { code, constraint: name } = shape(error);
  if (code !== '23505') return false;
  if (constraint === undefined) return true;
  return (
    typeof name === 'string' && (typeof constraint === 'string' ? [constraint] : constraint).includes(name)
  );
}

/** SQLSTATE 23514 (check constraint); with `constraint`, only that one. */
export function isCheckViolation(error: unknown, constraint?: string): boolean {
  const { code, constraint: name } = shape(error);
  return code === '23514' && (constraint === undefined || name === constraint);
}

/** SQLSTATE 23503 (foreign key). */
export const isForeignKeyViolation = (error: unknown): boolean => shape(error).code === '23503';
