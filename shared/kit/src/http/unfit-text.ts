import { BadRequestError } from '../errors.ts';

/**
 * Text that may not enter: a NUL character (Postgres text and jsonb cannot hold it; it means
 * nothing in any parameter) or a lone UTF-16 surrogate (not a character; Postgres stores U+FFFD
 * instead, PGlite fails). Checked where input enters, once per request, so no handler or query
 * ever sees it.
 */
export function unfitTextReason(value: string): string | null {
  if (value.includes('\u0000')) return 'contains a NUL character';
  if (!value.isWellFormed()) return 'contains a lone surrogate (not valid Unicode)';
  return null;
}

/** The first unfit string in a parsed JSON value (keys included), with its field path. */
export function findUnfitText(value: unknown, path: string): { field: string; message: string } | null {
  if (typeof value === 'string') {
    const reason = unfitTextReason(value);
    return reason === null ? null : { field: path, message: reason };
  }
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findUnfitText(item, `${path}.${index}`);
      if (found) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    const keyReason = unfitTextReason(key);
    if (keyReason !== null) return { field: path, message: `a member name ${keyReason}` };
    const found = findUnfitText(item, `${path}.${key}`);
    if (found) return found;
  }
  return null;
}

/** 400 for a parsed body that holds unfit text. */
export function assertFitBody(body: unknown): void {
  const found = findUnfitText(body, 'body');
  if (found) throw new BadRequestError(`Invalid body: ${found.field} ${found.message}`, [found]);
}

const decodeOrNull = (part: string): string | null => {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
};

/**
 * 400 for a request target whose path or query, once percent-decoded, is not valid UTF-8 or holds
 * unfit text. Costs nothing for targets without a percent sign (the common case).
 */
export function assertFitTarget(path: string, querystring: string): void {
  // Each part on its own (no array of pairs per request: this runs on every request).
  assertFitTargetPart('path', path);
  assertFitTargetPart('query', querystring);
}

function assertFitTargetPart(where: 'path' | 'query', raw: string): void {
  if (!raw.includes('%') && !raw.includes('\u0000')) return;
  const decoded = decodeOrNull(where === 'query' ? raw.replace(/\+/g, ' ') : raw);
  if (decoded === null) {
    throw new BadRequestError(`Invalid ${where}: not valid percent-encoded UTF-8`, [
      { field: where, message: 'not valid percent-encoded UTF-8' },
    ]);
  }
  const reason = unfitTextReason(decoded);
  if (reason !== null)
    throw new BadRequestError(`Invalid ${where}: it ${reason}`, [{ field: where, message: reason }]);
}

/** Koa middleware: the request target's check, before routing (every service, first thing). */
export function rejectUnfitTarget() {
  return function rejectUnfitTargetMiddleware(
    ctx: { path: string; querystring: string },
    next: () => Promise<unknown>,
  ) {
    assertFitTarget(ctx.path, ctx.querystring);
    return next();
  };
}
