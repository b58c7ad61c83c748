import { createApiKey } from '@sched/db/queries/api-keys';
import { recordAuditEvent } from '@sched/db/queries/audit-log';
import { createUser, WEEKDAYS } from '@sched/db/queries/users';
import { z } from 'zod';
import { presentUser, userExample, userOutput } from '../../presenters/user.ts';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { LOCALES, timeZoneInput, usernameInput } from '../../routing/user-fields.ts';
import { named } from '../../openapi/named.ts';

export const createUserBody = z.strictObject({
  email: z.email().max(254),
  password: z.string().min(8).max(200).optional(),
  name: z.string().trim().min(1).max(200).optional(),
  username: usernameInput.optional(),
  timeZone: timeZoneInput.optional(),
  weekStart: z.enum(WEEKDAYS).optional(),
  locale: z.enum(LOCALES).optional(),
});

export const createUserRoute = defineRoute({
  method: 'POST',
  path: '/admin/users',
  summary: 'Creates a user (e-mail taken as verified) and an API key for them, shown once',
  tags: ['Admin'],
  auth: 'admin',
  body: named('CreateUserRequest', createUserBody, {
    email: 'mia@example.com',
    name: 'Mia Member',
    username: 'mia',
    timeZone: 'Europe/Berlin',
  }),
  response: {
    status: 201,
    errors: { 409: 'The e-mail address or the username is taken' },
    description: 'The user and their API key',
    schema: named(
      'CreatedUser',
      z.object({ user: userOutput, apiKey: z.string().meta({ description: 'svc_...; shown once' }) }),
      {
        user: { ...userExample, timeFormat: null },
        apiKey: 'svc_j9eclFkhsAZ6fMwEQGylNYbgSPsG9IgllrrB1WCh2aY',
      },
    ),
  },
  handler: async ({ deps, body, caller, ctx }) => {
    const audit = auditContextOf(caller, ctx);
    // The account, its event (no address, name or password) and its first key: one transaction.
    const { user, key } = await deps.stores.db.knex.transaction(async (trx) => {
      const user = await createUser(trx, {
        ...body,
        emailVerifiedAt: new Date(),
        onboardingStep: 'complete',
      });
      await recordAuditEvent(trx, audit, {
        action: 'user.created',
        targetType: 'user',
        targetId: user.id,
        after: { emailVerified: true, hasPassword: body.password !== undefined, serviceAdmin: false },
        details: { through: 'admin_api' },
      });
      return { user, key: await createApiKey(trx, user.id, audit) };
    });
    return { status: 201, data: { user: presentUser(user), apiKey: key.plain } };
  },
});
