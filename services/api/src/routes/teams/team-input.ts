import { BadRequestError } from '@sched/kit/errors';
import { z } from 'zod';
import { slug, slugify, text } from '../../routing/schemas.ts';
import { named } from '../../openapi/named.ts';

/** POST /teams and POST /organizations/:orgId/teams. */
export const newTeamBody = named(
  'CreateTeamRequest',
  z.strictObject({
    name: text(200),
    slug: slug.optional().meta({ description: 'defaults to the name, lowercased with dashes' }),
  }),
  { name: 'Sales', slug: 'sales' },
);

/** The slug given, or one made from the name. */
export function teamSlug(body: z.infer<typeof newTeamBody>): string {
  const value = body.slug ?? slugify(body.name);
  if (value === '') {
    throw new BadRequestError('A slug is needed: the name has no letters or digits to make one from', [
      { field: 'body.slug', message: 'required for this name' },
    ]);
  }
  return value;
}
