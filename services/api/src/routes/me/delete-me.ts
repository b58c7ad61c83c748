import { deleteAccount } from '@sched/clients/account-deletion';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';

export const deleteMe = defineRoute({
  method: 'DELETE',
  path: '/me',
  summary: "Deletes the caller's account (204); 409 while they are the last owner of an organization or team",
  description:
    'API key only (OAuth tokens: 403). Refused with 409 naming the organizations and teams where the ' +
    'caller is the last accepted OWNER: `You are the last owner of: organization "Acme", team "Support". ' +
    'Hand ownership to someone else or delete them first.` (`error.details` lists them as ' +
    '`{kind, id, name}`). Otherwise the accepted bookings the caller hosts are cancelled (reason ' +
    '`The host deleted their account`), and the account goes with its memberships, API keys, OAuth ' +
    'grants and tokens, browser sessions, remembered consents, schedules, calendar connections with their ' +
    'stored credentials (events already written stay in the calendars), personal event types and the ' +
    'OAuth clients it owns (their tokens end too). The key used for this call stops working at once.',
  tags: ['Me'],
  auth: 'api-key',
  response: {
    status: 204,
    description: 'Deleted',
    errors: { 409: 'The user is the last accepted owner of organizations or teams (`details` names them)' },
  },
  handler: async ({ caller, deps, ctx }) => {
    await deleteAccount(deps, caller.userId, auditContextOf(caller, ctx));
    return { status: 204 };
  },
});
