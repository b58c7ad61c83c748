import { BadRequestError } from '@sched/kit/errors';
import { type PermissionPattern, validatePermission } from '@sched/policy/permissions';

/**
 * Validates role permissions with `@sched/policy/permissions`; the first invalid one is a 400
 * whose message is the contract's exact text. Returns them de-duplicated.
 */
export function requireValidPermissions(
  values: readonly string[],
  fieldOf: (index: number) => string = (index) => `body.permissions.${index}`,
): PermissionPattern[] {
  const valid: PermissionPattern[] = [];
  for (const [index, value] of values.entries()) {
    const check = validatePermission(value);
    if (!check.valid)
      throw new BadRequestError(check.message, [{ field: fieldOf(index), message: check.message }]);
    valid.push(check.permission);
  }
  return [...new Set(valid)];
}
