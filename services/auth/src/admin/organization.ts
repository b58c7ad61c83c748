import { DuplicateRecordError, RecordNotFoundError, RuleRefusedError } from '@sched/db/errors';
import { deleteOrganizationMembership } from '@sched/db/queries/membership-changes';
import { createMembership, listMemberships } from '@sched/db/queries/memberships';
import { findOrganizationById, updateOrganization } from '@sched/db/queries/organizations';
import { findUserByEmail } from '@sched/db/queries/users';
import { NotFoundError } from '@sched/kit/errors';
import { ROLES } from '@sched/policy/roles';
import type { Context } from 'koa';
import { z } from 'zod';
import type { AuthDeps } from '../deps.ts';
import { seeOther } from '../interaction/current.ts';
import { csrfFor, type FieldErrors, fieldErrorsOf, readForm, userPurpose } from '../web/forms.ts';
import { pageOf, pageSlice } from '../web/paging.ts';
import type { SignedIn } from '../web/session.ts';
import { sendSettingsPage, shell } from '../web/shell.ts';
import { type AdminHandler, noticeOf, numericParam } from './guard.ts';
import { adminOrganizationPath } from './nav.ts';
import { type MemberFormValues, organizationPage } from './organization-page.ts';

/**
 * One organization in the console. The PBAC switch goes through `updateOrganization`, the data
 * path of `PATCH /v2/admin/organizations/{orgId}` (so the organization's access version is bumped
 * the same way); adding a member follows `POST /v2/admin/organizations/{orgId}/memberships`
 * (an existing account, provisioned accepted, `membership.provisioned`); removing one keeps at
 * least one accepted owner, as the API does when an owner's role changes. Every change is audited
 * in its own transaction with the administrator as actor.
 */

const ORG_NOT_FOUND = 'Organization not found';
const LAST_OWNER = 'The organization must keep at least one owner';

const NOTICES: Record<string, string> = {
  created: 'Organization created. Its owner is an accepted member.',
  'pbac-on': 'PBAC turned on. Custom roles apply from the next request.',
  'pbac-off': 'PBAC turned off. Only the roles OWNER, ADMIN and MEMBER apply from the next request.',
  'member-added': 'Member added (accepted).',
  'member-removed': 'Member removed, with their memberships of the organization’s teams.',
};

const EMPTY_MEMBER: MemberFormValues = { email: '', role: 'MEMBER' };

const orgIdOf = (ctx: Context) => numericParam(ctx, 'orgId', ORG_NOT_FOUND);

async function organizationOf(deps: AuthDeps, ctx: Context) {
  const organization = await findOrganizationById(deps.runtime.stores.db.knex, orgIdOf(ctx));
  if (!organization) throw new NotFoundError(ORG_NOT_FOUND);
  return organization;
}

async function render(
  deps: AuthDeps,
  ctx: Context,
  signedIn: SignedIn,
  status: number,
  extra: { error?: string; memberForm?: MemberFormValues; memberErrors?: FieldErrors } = {},
): Promise<void> {
  const organization = await organizationOf(deps, ctx);
  const paging = pageOf(ctx);
  const rows = await listMemberships(
    deps.runtime.stores.db.knex,
    { kind: 'organization', id: organization.id },
    { skip: paging.skip, take: paging.take + 1 },
  );
  const { items, hasMore } = pageSlice(rows, paging);
  const csrf = csrfFor(deps, ctx, userPurpose(signedIn.user.id));
  sendSettingsPage(
    ctx,
    status,
    organization.name,
    shell(
      { signedIn, csrf, section: 'admin' },
      organizationPage({
        organization,
        members: items,
        page: paging,
        hasMore,
        csrf,
        notice: status === 200 ? noticeOf(ctx, NOTICES) : undefined,
        error: extra.error,
        memberForm: extra.memberForm ?? EMPTY_MEMBER,
        memberErrors: extra.memberErrors ?? {},
      }),
    ),
  );
}

export const organizationDetail: AdminHandler = (deps, ctx, signedIn) => render(deps, ctx, signedIn, 200);

const pbacBody = z.object({ pbacEnabled: z.enum(['true', 'false']) });

export const pbacAction: AdminHandler = async (deps, ctx, signedIn) => {
  const orgId = orgIdOf(ctx);
  const form = await readForm(deps, ctx, userPurpose(signedIn.user.id));
  const parsed = pbacBody.safeParse({ pbacEnabled: form.pbacEnabled });
  if (!parsed.success)
    return render(deps, ctx, signedIn, 400, { error: 'pbacEnabled must be true or false' });
  const pbacEnabled = parsed.data.pbacEnabled === 'true';
  const { runtime } = deps;
  const updated = await updateOrganization(
    runtime.stores.db.knex,
    runtime.stores.tokenStore,
    orgId,
    { pbacEnabled },
    signedIn.actor.audit,
  );
  if (!updated) throw new NotFoundError(ORG_NOT_FOUND);
  seeOther(ctx, `${adminOrganizationPath(orgId)}?notice=${pbacEnabled ? 'pbac-on' : 'pbac-off'}`);
};

const memberBody = z.object({
  email: z.email('an e-mail address is required').max(254),
  role: z.enum(ROLES, 'OWNER, ADMIN or MEMBER'),
});

export const provisionMemberAction: AdminHandler = async (deps, ctx, signedIn) => {
  const organization = await organizationOf(deps, ctx);
  const form = await readForm(deps, ctx, userPurpose(signedIn.user.id));
  const values: MemberFormValues = { email: (form.email ?? '').trim(), role: form.role ?? '' };
  const parsed = memberBody.safeParse({ email: values.email, role: values.role.toUpperCase() });
  if (!parsed.success)
    return render(deps, ctx, signedIn, 400, {
      memberForm: values,
      memberErrors: fieldErrorsOf(parsed.error),
    });
  const { runtime } = deps;
  const knex = runtime.stores.db.knex;
  const refused = (status: number, errors: FieldErrors) =>
    render(deps, ctx, signedIn, status, { memberForm: values, memberErrors: errors });
  const user = await findUserByEmail(knex, parsed.data.email);
  if (!user) return refused(404, { email: 'User not found' });
  try {
    await createMembership(
      knex,
      runtime.stores.tokenStore,
      {
        parent: { kind: 'organization', id: organization.id },
        member: { userId: user.id },
        role: parsed.data.role,
        accepted: true,
      },
      { audit: signedIn.actor.audit, action: 'membership.provisioned' },
    );
  } catch (error) {
    if (error instanceof DuplicateRecordError)
      return refused(409, { email: 'The user is already a member of this organization' });
    if (error instanceof RecordNotFoundError) return refused(404, { email: 'User not found' });
    throw error;
  }
  seeOther(ctx, `${adminOrganizationPath(organization.id)}?notice=member-added`);
};

export const removeMemberAction: AdminHandler = async (deps, ctx, signedIn) => {
  const organization = await organizationOf(deps, ctx);
  const membershipId = numericParam(ctx, 'membershipId', 'Membership not found');
  await readForm(deps, ctx, userPurpose(signedIn.user.id));
  const { runtime } = deps;
  let removed: boolean;
  try {
    // The other owners are locked with the membership removed, so two admins removing the last two
    // owners at once do not both succeed: the second sees the first's removal.
    removed = await deleteOrganizationMembership(
      runtime.stores.db.knex,
      runtime.stores.tokenStore,
      organization.id,
      membershipId,
      { audit: signedIn.actor.audit, action: 'membership.removed' },
      ({ membership, otherOwners }) =>
        membership.role === 'OWNER' && membership.accepted && otherOwners === 0
          ? { allowed: false, reason: LAST_OWNER }
          : { allowed: true },
      { owners: true },
    );
  } catch (error) {
    if (!(error instanceof RuleRefusedError)) throw error;
    return render(deps, ctx, signedIn, 409, { error: error.reason });
  }
  if (!removed) throw new NotFoundError('Membership not found');
  seeOther(ctx, `${adminOrganizationPath(organization.id)}?notice=member-removed`);
};
