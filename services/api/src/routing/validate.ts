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
 * Parses one part of the request; failures list every failing field for the 400's details.
 * Without a schema the part must be empty: an endpoint that takes no query parameters or body
 * refuses them rather than ignoring them (unknown fields are 400, contract §3).
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
