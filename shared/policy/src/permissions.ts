// PBAC permission catalogue and wildcard matching.

export const PERMISSION_RESOURCES = [
  'role',
  'eventType',
  'team',
  'organization',
  'booking',
  'schedule',
] as const;
export const CRUD_ACTIONS = ['create', 'read', 'update', 'delete'] as const;
/** Extra actions that exist only on `team` and `organization`. */
export const MEMBERSHIP_ACTIONS = ['invite', 'remove', 'listMembers', 'changeMemberRole'] as const;

export type PermissionResource = (typeof PERMISSION_RESOURCES)[number];
export type CrudAction = (typeof CRUD_ACTIONS)[number];
export type MembershipAction = (typeof MEMBERSHIP_ACTIONS)[number];
export type PermissionAction = CrudAction | MembershipAction;

/** A concrete permission, as an endpoint requires it. */
export type Permission =
  | `${PermissionResource}.${CrudAction}`
  | `${'team' | 'organization'}.${MembershipAction}`;
/** What a custom role may hold: a permission, or one with `*` for either part. */
export type PermissionPattern = Permission | '*.*' | `${PermissionResource}.*` | `*.${PermissionAction}`;

const includes = (list: readonly string[], value: string): boolean => list.includes(value);

const actionsOf = (resource: string): readonly string[] =>
  resource === 'team' || resource === 'organization' || resource === '*'
    ? [...CRUD_ACTIONS, ...MEMBERSHIP_ACTIONS]
    : CRUD_ACTIONS;

/** Every concrete permission (32), e.g. for a role editor. */
export const PERMISSIONS: readonly Permission[] = PERMISSION_RESOURCES.flatMap((r) =>
  actionsOf(r).map((a) => `${r}.${a}` as Permission),
);

/**
 * Strict: case-sensitive, no surrounding whitespace, exactly one dot. `*.invite` is valid (some
 * resource has that action); `eventType.invite` is not (no such permission).
 */
export function isValidPermission(value: unknown): value is PermissionPattern {
  if (typeof value !== 'string') return false;
  const parts = value.split('.');
  if (parts.length !== 2) return false;
  const [resource = '', action = ''] = parts;
  if (resource !== '*' && !includes(PERMISSION_RESOURCES, resource)) return false;
  return action === '*' || includes(actionsOf(resource), action);
}

export const invalidPermissionMessage = (value: unknown): string =>
  `Permission '${String(value)}' must be a valid permission string in format 'resource.action' ` +
  `(e.g., 'eventType.read', 'booking.create')`;

export type PermissionValidation =
  | { valid: true; permission: PermissionPattern }
  | { valid: false; message: string };

/** One value; the message is the fixed 400 text. */
export function validatePermission(value: unknown): PermissionValidation {
  return isValidPermission(value)
    ? { valid: true, permission: value }
    : { valid: false, message: invalidPermissionMessage(value) };
}

export type PermissionListValidation =
  | { valid: true; permissions: PermissionPattern[] }
  | { valid: false; message: string; invalid: unknown };

/** A list (role permission POST/PUT/DELETE): first invalid value fails; valid ones de-duplicated. */
export function validatePermissionList(values: readonly unknown[]): PermissionListValidation {
  const at = values.findIndex((v) => !isValidPermission(v));
  if (at !== -1) return { valid: false, message: invalidPermissionMessage(values[at]), invalid: values[at] };
  return { valid: true, permissions: [...new Set(values as PermissionPattern[])] };
}

/**
 * Does any held pattern cover `required`? `*` in a held pattern matches any value of that part;
 * a `*` in `required` is only covered by `*`. Invalid held strings (stored before validation,
 * say) never match.
 */
export function permissionGrants(held: readonly string[], required: string): boolean {
  const [reqResource, reqAction, ...rest] = required.split('.');
  if (reqResource === undefined || reqAction === undefined || rest.length > 0) return false;
  return held.some((pattern) => {
    if (!isValidPermission(pattern)) return false;
    const [resource, action] = pattern.split('.');
    return (resource === '*' || resource === reqResource) && (action === '*' || action === reqAction);
  });
}
