import { BadRequestError, type FieldIssue } from '@sched/kit/errors';
import type { z } from 'zod';

type Part = 'params' | 'query' | 'body';

const isEmpty = (value: unknown): boolean =>
  value === undefined ||
  value === null ||
  (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0);

function fail(part: Part, details: FieldIssue[]): never {
  throw new BadRequestError(
    `Invalid ${part}: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`,
    details,
  );
}

/**
 * Parses one part of the request; failures list every failing field for the 400's details. Without
 * a schema the part must be empty: an endpoint that takes no query parameters or body refuses them
 * rather than ignoring them (unknown fields are 400, so a typo is never silently dropped).
 */
export function validatePart<T>(schema: z.ZodType<T> | undefined, value: unknown, part: Part): T {
  if (!schema) {
    if (part !== 'params' && !isEmpty(value)) {
      const fields = typeof value === 'object' && value !== null ? Object.keys(value) : [''];
      fail(
        part,
        fields.map((field) => ({
          field: field === '' ? part : `${part}.${field}`,
          message: part === 'body' ? 'this endpoint takes no request body' : 'unknown query parameter',
        })),
      );
    }
    return (part === 'body' ? undefined : {}) as T;
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details: FieldIssue[] = result.error.issues.flatMap((issue) => {
    const at = [part, ...issue.path.map(String)].join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: `${at}.${key}`, message: 'unknown field' }));
    }
    return [{ field: at, message: issue.message }];
  });
  fail(part, details);
}

/** How many parsed parameter sets each schema keeps. */
const MAX_PARSED_PARAMS = 4096;
const parsedParams = new WeakMap<z.ZodType, Map<string, unknown>>();

/**
 * `validatePart` for path parameters, remembered per schema and raw text: the same few ids come
 * back on every request, and zod's object parse allocated more per request than the rest of the
 * route's own steps (issue 22). Parameter schemas are pure declarations (ids, slugs), so the same
 * text parses to the same value; the value is frozen because requests share it. Only successful
 * parses of plain string values without '/' are kept (the key joins them with '/'); failures and
 * anything else are parsed every time, so every 400 is the same as before.
 */
export function validateParams<T>(schema: z.ZodType<T> | undefined, raw: Record<string, unknown>): T {
  if (!schema) return validatePart(schema, raw, 'params');
  // The route table shares one frozen parameter object per path: its parse is found without a key.
  const rawShared = Object.isFrozen(raw);
  const shared = rawShared ? parsedShared.get(raw) : undefined;
  if (shared?.schema === schema) return shared.value as T;
  const value = parsedParamsOf(schema, raw);
  // Only a parse that is itself shared (frozen) is kept: the memo's (plain values, see below).
  if (rawShared && typeof value === 'object' && value !== null && Object.isFrozen(value))
    parsedShared.set(raw, { schema, value });
  return value;
}

/** A frozen raw parameter object -> its schema and parse (see validateParams). */
const parsedShared = new WeakMap<object, { schema: z.ZodType; value: unknown }>();

function parsedParamsOf<T>(schema: z.ZodType<T>, raw: Record<string, unknown>): T {
  let key = '';
  for (const name in raw) {
    const value = raw[name];
    if (typeof value !== 'string' || value.includes('/')) return validatePart(schema, raw, 'params');
    key += `${name}/${value}/`;
  }
  let memo = parsedParams.get(schema);
  const known = memo?.get(key);
  if (known !== undefined) return known as T;
  const parsed = validatePart(schema, raw, 'params');
  if (parsed === undefined || parsed === null) return parsed;
  if (memo === undefined) {
    memo = new Map();
    parsedParams.set(schema, memo);
  }
  if (memo.size >= MAX_PARSED_PARAMS) memo.clear();
  memo.set(key, typeof parsed === 'object' ? Object.freeze(parsed) : parsed);
  return parsed;
}
