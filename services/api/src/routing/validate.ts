import { BadRequestError, type FieldIssue } from '@sched/kit/errors';
import type { z } from 'zod';

/** Parses one part of the request; failures list every failing field for the 400's details. */
export function validatePart<T>(
  schema: z.ZodType<T> | undefined,
  value: unknown,
  part: 'params' | 'query' | 'body',
): T {
  if (!schema) return (part === 'body' ? undefined : {}) as T;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details: FieldIssue[] = result.error.issues.map((issue) => ({
    field: [part, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  throw new BadRequestError(
    `Invalid ${part}: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`,
    details,
  );
}
