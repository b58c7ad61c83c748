import { DuplicateRecordError } from '@sched/db/errors';
import { searchOrganizations } from '@sched/db/queries/admin-organizations';
import { createOrganization } from '@sched/db/queries/organizations';
import { findUserByEmail } from '@sched/db/queries/users';
import { slug } from '@sched/policy/slugs';
import type { Context } from 'koa';
import { z } from 'zod';
import type { AuthDeps } from '../deps.ts';
import { seeOther } from '../interaction/current.ts';
import { csrfFor, type FieldErrors, fieldErrorsOf, readForm, userPurpose } from '../web/forms.ts';
import type { SignedIn } from '../web/session.ts';
import { sendSettingsPage, shell } from '../web/shell.ts';
import { type AdminHandler, searchListPage } from './guard.ts';
import { adminOrganizationPath } from './nav.ts';
import {
  EMPTY_ORGANIZATION,
  type OrganizationFormValues,
  organizationFormPage,
  organizationListPage,
} from './organizations-pages.ts';

/**
 * The console's organizations: search by name or slug, and creation with an owner, like
 * `POST /v2/admin/organizations` (the same data-layer call: the owner's accepted OWNER membership
 * in the same transaction; the administrator need not be a member). Audited as `organization.created`
 * and the owner's `membership.added`.
 */

export const organizationsList: AdminHandler = searchListPage('Organizations', searchOrganizations, (view) =>
  organizationListPage({ organizations: view.items, q: view.q, page: view.page, hasMore: view.hasMore }),
);

function renderForm(
  deps: AuthDeps,
  ctx: Context,
  signedIn: SignedIn,
  status: number,
  form: OrganizationFormValues = EMPTY_ORGANIZATION,
  errors: FieldErrors = {},
): void {
  const csrf = csrfFor(deps, ctx, userPurpose(signedIn.user.id));
  sendSettingsPage(
    ctx,
    status,
    'New organization',
    shell({ signedIn, csrf, section: 'admin' }, organizationFormPage({ csrf, form, errors })),
  );
}

export const newOrganizationPage: AdminHandler = async (deps, ctx, signedIn) =>
  renderForm(deps, ctx, signedIn, 200);

const createBody = z.object({
  name: z.string().trim().min(1, 'a name is required').max(200, 'at most 200 characters'),
  slug,
  ownerEmail: z.email('an e-mail address is required').max(254),
  pbacEnabled: z.boolean(),
});

export const createOrganizationAction: AdminHandler = async (deps, ctx, signedIn) => {
  const form = await readForm(deps, ctx, userPurpose(signedIn.user.id));
  const values: OrganizationFormValues = {
    name: form.name ?? '',
    slug: (form.slug ?? '').trim(),
    ownerEmail: (form.ownerEmail ?? '').trim(),
    pbacEnabled: form.pbacEnabled === 'on',
  };
  const parsed = createBody.safeParse(values);
  if (!parsed.success) return renderForm(deps, ctx, signedIn, 400, values, fieldErrorsOf(parsed.error));
  const { runtime } = deps;
  const knex = runtime.stores.db.knex;
  const owner = await findUserByEmail(knex, parsed.data.ownerEmail);
  if (!owner) return renderForm(deps, ctx, signedIn, 404, values, { ownerEmail: 'User not found' });
  let orgId: number;
  try {
    const organization = await createOrganization(
      knex,
      runtime.stores.tokenStore,
      {
        name: parsed.data.name,
        slug: parsed.data.slug,
        pbacEnabled: parsed.data.pbacEnabled,
        ownerUserId: owner.id,
      },
      signedIn.actor.audit,
    );
    orgId = organization.id;
  } catch (error) {
    if (!(error instanceof DuplicateRecordError)) throw error;
    return renderForm(deps, ctx, signedIn, 409, values, {
      slug: 'An organization with this slug already exists',
    });
  }
  seeOther(ctx, `${adminOrganizationPath(orgId)}?notice=created`);
};
