import {
  createManagedUser,
  deleteManagedUser,
  findManagedUser,
  listManagedUsers,
  updateManagedUser,
} from '@sched/db/queries/managed-users';
import { WEEKDAYS } from '@sched/db/queries/users';
import { NotFoundError } from '@sched/kit/errors';
import { z } from 'zod';
import { defineRoute } from '../../routing/route.ts';
import { idParam, pagination } from '../../routing/schemas.ts';
import { LOCALES, timeZoneInput } from '../../routing/user-fields.ts';
import { managedUserOutput, presentManagedUser } from './present.ts';
import { named } from '../../openapi/named.ts';

/**
 * The deprecated managed-user family (docs/oauth-clients.md "Managed users"): authenticated by
 * `x-svc-secret-key` against the active secrets of `:clientId`; a user of another client is 404.
 * Declared `deprecated`: every answer carries the deprecation headers (routing/deprecation.ts).
 */
const TAGS = ['Managed users (deprecated)'];
const USER_NOT_FOUND = 'Managed user not found';
const EMAIL_TAKEN = 'A user with this email already exists';

const clientParams = z.strictObject({ clientId: z.string().max(200) });
const userParams = z.strictObject({ clientId: z.string().max(200), userId: idParam });

const fields = {
  name: z.string().trim().min(1).max(200).nullable().optional(),
  timeFormat: z
    .union([z.literal(12), z.literal(24)])
    .nullable()
    .optional(),
  weekStart: z.enum(WEEKDAYS).optional(),
  timeZone: timeZoneInput.optional(),
  locale: z.enum(LOCALES).optional(),
  bio: z.string().max(1000).nullable().optional(),
  avatarUrl: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .nullable()
    .optional(),
  metadata: z
    .record(z.string().max(40), z.union([z.string().max(500), z.number(), z.boolean()]))
    .refine((value) => Object.keys(value).length <= 50, 'at most 50 keys')
    .optional(),
};

const createBody = named('CreateManagedUserInput', z.strictObject({ email: z.email().max(254), ...fields }), {
  email: 'managed-31@example.com',
  name: 'Max Managed',
  timeZone: 'America/New_York',
  timeFormat: 12,
});
const updateBody = named(
  'UpdateManagedUserInput',
  z.strictObject({ email: z.email().max(254).optional(), ...fields }),
  { name: 'Max Managed', weekStart: 'Monday' },
);

/** Drops undefined values (exactOptionalPropertyTypes-friendly inputs for the query layer). */
function defined<T extends Record<string, unknown>>(input: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

/** The v2 API names the envelope of one managed user GetManagedUserOutput. */
const envelope = (description: string) => ({
  status: 200,
  description,
  schema: managedUserOutput,
  name: 'GetManagedUserOutput',
});

export const createManagedUserRoute = defineRoute({
  method: 'POST',
  path: '/oauth-clients/:clientId/users',
  summary: 'Creates a managed user of the client (deprecated)',
  tags: TAGS,
  auth: 'client-secret',
  deprecated: true,
  params: clientParams,
  body: createBody,
  response: { ...envelope('GetManagedUserOutput'), status: 201, errors: { 409: EMAIL_TAKEN } },
  handler: async ({ caller, deps, body }) => {
    const user = await createManagedUser(deps.stores.db.knex, caller.clientId, defined(body) as typeof body);
    return { status: 201, data: presentManagedUser(user) };
  },
});

export const listManagedUsersRoute = defineRoute({
  method: 'GET',
  path: '/oauth-clients/:clientId/users',
  summary: "The client's managed users, oldest first (deprecated)",
  tags: TAGS,
  auth: 'client-secret',
  deprecated: true,
  params: clientParams,
  query: pagination,
  response: {
    status: 200,
    description: 'Managed users',
    schema: z.array(managedUserOutput),
    name: 'GetManagedUsersOutput',
  },
  handler: async ({ caller, deps, query }) => {
    const users = await listManagedUsers(deps.stores.db.knex, caller.clientId, query);
    return { data: users.map(presentManagedUser) };
  },
});

export const getManagedUserRoute = defineRoute({
  method: 'GET',
  path: '/oauth-clients/:clientId/users/:userId',
  summary: 'One managed user of the client (deprecated)',
  tags: TAGS,
  auth: 'client-secret',
  deprecated: true,
  params: userParams,
  response: envelope('GetManagedUserOutput'),
  handler: async ({ caller, deps, params }) => {
    const user = await findManagedUser(deps.stores.db.knex, caller.clientId, params.userId);
    if (!user) throw new NotFoundError(USER_NOT_FOUND);
    return { data: presentManagedUser(user) };
  },
});

export const updateManagedUserRoute = defineRoute({
  method: 'PATCH',
  path: '/oauth-clients/:clientId/users/:userId',
  summary: 'Changes a managed user of the client (deprecated)',
  tags: TAGS,
  auth: 'client-secret',
  deprecated: true,
  params: userParams,
  body: updateBody,
  response: { ...envelope('GetManagedUserOutput'), errors: { 409: EMAIL_TAKEN } },
  handler: async ({ caller, deps, params, body }) => {
    const user = await updateManagedUser(
      deps.stores.db.knex,
      deps.stores.tokenStore,
      caller.clientId,
      params.userId,
      defined(body) as typeof body,
    );
    if (!user) throw new NotFoundError(USER_NOT_FOUND);
    return { data: presentManagedUser(user) };
  },
});

export const deleteManagedUserRoute = defineRoute({
  method: 'DELETE',
  path: '/oauth-clients/:clientId/users/:userId',
  summary: 'Deletes a managed user of the client (deprecated)',
  description: 'Returns GetManagedUserOutput: the deleted user in `data`.',
  tags: TAGS,
  auth: 'client-secret',
  deprecated: true,
  params: userParams,
  response: envelope('GetManagedUserOutput'),
  handler: async ({ caller, deps, params }) => {
    const user = await deleteManagedUser(
      deps.stores.db.knex,
      deps.stores.tokenStore,
      caller.clientId,
      params.userId,
    );
    if (!user) throw new NotFoundError(USER_NOT_FOUND);
    return { data: presentManagedUser(user) };
  },
});
