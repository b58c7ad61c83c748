import { disableAccount, enableAccount } from '@sched/accounts/disable';
import { sendResetEmail } from '@sched/accounts/password-reset';
import { findUserForAdmin, searchUsers } from '@sched/db/queries/admin-users';
import { recordAuditEvent } from '@sched/db/queries/audit-log';
import { setServiceAdmin } from '@sched/db/queries/users';
import { transactionWithBumps } from '@sched/db/versions';
import { ConflictError, NotFoundError } from '@sched/kit/errors';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { seeOther } from '../interaction/current.ts';
import { csrfFor, readForm, userPurpose } from '../web/forms.ts';
import { sendSettingsPage, shell } from '../web/shell.ts';
import { type AdminHandler, noticeOf, numericParam, searchListPage } from './guard.ts';
import { adminUserPath } from './nav.ts';
import { userDetailPage, userListPage } from './users-pages.ts';

/**
 * The console's users (search by e-mail or name, view, disable and enable, send a reset
 * link, grant or remove service administrator), each action audited with the administrator as actor.
 */

type Handler = AdminHandler;

export const usersList: Handler = searchListPage('Users', searchUsers, (view) =>
  userListPage({ users: view.items, q: view.q, page: view.page, hasMore: view.hasMore }),
);

async function userOf(deps: AuthDeps, ctx: Context) {
  const user = await findUserForAdmin(
    deps.runtime.stores.db.knex,
    numericParam(ctx, 'userId', 'User not found'),
  );
  if (!user) throw new NotFoundError('User not found');
  return user;
}

const USER_NOTICES: Record<string, string> = {
  disabled: 'Account disabled. It is signed out everywhere; its app authorizations and API keys have ended.',
  enabled: 'Account enabled. It can sign in again.',
  'reset-link': 'Reset link sent to the account’s address.',
  'admin-granted': 'The user is a service administrator now.',
  'admin-removed': 'The user is no longer a service administrator.',
};

export const userDetail: Handler = async (deps, ctx, signedIn) => {
  const user = await userOf(deps, ctx);
  const csrf = csrfFor(deps, ctx, userPurpose(signedIn.user.id));
  sendSettingsPage(
    ctx,
    200,
    user.email,
    shell(
      { signedIn, csrf, section: 'admin' },
      userDetailPage({ user, self: user.id === signedIn.user.id, csrf, notice: noticeOf(ctx, USER_NOTICES) }),
    ),
  );
};

type UserAction = 'disable' | 'enable' | 'reset-link' | 'grant-admin' | 'remove-admin';

/** POST /auth/admin/users/:userId/<action>: the change, its audit event, back to the user's page. */
export const userAction =
  (action: UserAction): Handler =>
  async (deps, ctx, signedIn) => {
    const user = await userOf(deps, ctx);
    await readForm(deps, ctx, userPurpose(signedIn.user.id));
    const { runtime } = deps;
    const knex = runtime.stores.db.knex;
    const audit = signedIn.actor.audit;
    const self = user.id === signedIn.user.id;
    let notice: string;
    switch (action) {
      case 'disable': {
        if (self) throw new ConflictError('You cannot disable your own account here');
        // The user.disabled event is written in the flag's own transaction (before: as it was then).
        const done = await disableAccount(runtime, user.id, audit);
        if (!done) throw new NotFoundError('User not found');
        notice = 'disabled';
        break;
      }
      case 'enable': {
        const done = await enableAccount(runtime, user.id, audit);
        if (!done) throw new NotFoundError('User not found');
        notice = 'enabled';
        break;
      }
      case 'reset-link': {
        // user.reset_link_sent is written in the link's own transaction.
        await sendResetEmail(runtime, user, audit);
        notice = 'reset-link';
        break;
      }
      case 'grant-admin':
      case 'remove-admin': {
        if (self) throw new ConflictError('You cannot change your own service administrator rights');
        const grant = action === 'grant-admin';
        await transactionWithBumps(knex, runtime.stores.tokenStore, async (trx, bumper) => {
          if (!(await setServiceAdmin(trx, bumper, user.id, grant)))
            throw new NotFoundError('User not found');
          await recordAuditEvent(trx, audit, {
            action: grant ? 'user.admin_granted' : 'user.admin_removed',
            targetType: 'user',
            targetId: user.id,
            before: { isServiceAdmin: user.isServiceAdmin },
            after: { isServiceAdmin: grant },
          });
        });
        notice = grant ? 'admin-granted' : 'admin-removed';
        break;
      }
    }
    seeOther(ctx, `${adminUserPath(user.id)}?notice=${notice}`);
  };
