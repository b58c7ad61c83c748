import type { Organization } from '@sched/db/queries/organizations';
import type { Team } from '@sched/db/queries/teams';
import { z } from 'zod';
import { named } from '../openapi/named.ts';

export function presentTeam(team: Team) {
  return { id: team.id, name: team.name, slug: team.slug, organizationId: team.organizationId };
}

export const teamOutput = named(
  'Team',
  z.object({ id: z.int(), name: z.string(), slug: z.string(), organizationId: z.int().nullable() }),
  { id: 12, name: 'Sales', slug: 'sales', organizationId: 7 },
);

/** An organization as the API shows it. */
export function presentOrganization(organization: Organization) {
  return {
    id: organization.id,
    name: organization.name,
    slug: organization.slug,
    pbacEnabled: organization.pbacEnabled,
  };
}

export const organizationOutput = named(
  'Organization',
  z.object({ id: z.int(), name: z.string(), slug: z.string(), pbacEnabled: z.boolean() }),
  { id: 7, name: 'Acme', slug: 'acme', pbacEnabled: false },
);
