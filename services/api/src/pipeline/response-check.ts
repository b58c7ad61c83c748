import type { z } from 'zod';
import type { AnyRoute, HandlerResult } from '../routing/route.ts';

/**
 * Outside production a handler's answer must be what its declaration (and so the OpenAPI document)
 * says: the declared status, `data` parsed by `response.schema`, `pagination` by
 * `response.pagination`. A mismatch is our bug, not the caller's: it becomes a 500 whose log names
 * the route and the failing fields, so a test or a developer meets it at once. Production skips the
 * check (its cost, a parse per response, buys nothing there).
 */
export function checkResult(route: AnyRoute, result: HandlerResult): void {
  const declared = route.response;
  const status = result.status ?? 200;
  const problems: string[] = [];
  if (status !== declared.status) problems.push(`status ${status} where ${declared.status} is declared`);
  else if (status !== 204) {
    if (!declared.schema) problems.push('no response schema is declared');
    else problems.push(...issuesOf('data', declared.schema, result.data ?? null));
    if (declared.pagination) problems.push(...issuesOf('pagination', declared.pagination, result.pagination));
    else if (result.pagination !== undefined) problems.push('pagination sent but not declared');
  }
  if (problems.length > 0) {
    throw new Error(
      `The answer of ${route.method} ${route.path} does not match its declaration: ${problems.join('; ')}`,
    );
  }
}

function issuesOf(part: string, schema: z.ZodType, value: unknown): string[] {
  const parsed = schema.safeParse(value);
  if (parsed.success) return [];
  return parsed.error.issues.map(
    (issue) => `${[part, ...issue.path.map(String)].join('.')}: ${issue.message}`,
  );
}
