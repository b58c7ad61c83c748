import {
  acceptedTeamMembers,
  createPersonalEventType,
  createTeamEventType,
  findEventTypeById,
  listPersonalEventTypes,
  listTeamEventTypes,
  teamExists,
} from '@sched/db/queries/event-types';
import { BadRequestError, NotFoundError } from '@sched/kit/errors';
import type { Knex } from 'knex';
import { z } from 'zod';
import { defineRoute } from '../../routing/route.ts';
import { eventTypeOutput, presentEventType } from '../../scheduling/presenters.ts';
import { idString, personalEventTypeBody, teamEventTypeBody } from './schemas.ts';

const TAGS = ['Event types'];
const eventTypeParams = z.object({ eventTypeId: idString });
const teamParams = z.object({ teamId: idString });
const teamEventTypeParams = z.object({ teamId: idString, eventTypeId: idString });

async function requireTeam(knex: Knex, teamId: number): Promise<void> {
  if (!(await teamExists(knex, teamId))) throw new NotFoundError('Team not found');
}

export const eventTypeRoutes = [
  defineRoute({
    method: 'POST',
    path: '/event-types',
    summary: 'Creates a personal event type of the caller (optional bookingLimits of its own)',
    tags: TAGS,
    auth: 'user',
    scope: 'EVENT_TYPE_WRITE',
    body: personalEventTypeBody,
    response: {
      status: 201,
      description: 'The event type',
      schema: eventTypeOutput,
      errors: { 409: 'An event type with this slug already exists' },
    },
    handler: async ({ caller, deps, body }) => {
      const eventType = await createPersonalEventType(deps.stores.db.knex, caller.userId, body);
      return { status: 201, data: presentEventType(eventType) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/event-types',
    summary: "The caller's personal event types",
    tags: TAGS,
    auth: 'user',
    mcp: { name: 'list_event_types' },
    scope: 'EVENT_TYPE_READ',
    response: { status: 200, description: 'Event types', schema: z.array(eventTypeOutput) },
    handler: async ({ caller, deps }) => ({
      data: (await listPersonalEventTypes(deps.stores.db.knex, caller.userId)).map(presentEventType),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/event-types/:eventTypeId',
    summary: "One of the caller's personal event types",
    tags: TAGS,
    auth: 'user',
    scope: 'EVENT_TYPE_READ',
    params: eventTypeParams,
    response: { status: 200, description: 'The event type', schema: eventTypeOutput },
    handler: async ({ caller, deps, params }) => {
      const eventType = await findEventTypeById(deps.stores.db.knex, params.eventTypeId);
      if (!eventType || eventType.ownerId !== caller.userId) throw new NotFoundError('Event type not found');
      return { data: presentEventType(eventType) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/teams/:teamId/event-types',
    summary: 'Creates a team event type; hostUserIds must be accepted members of the team',
    tags: TAGS,
    auth: 'user',
    scope: 'TEAM_EVENT_TYPE_WRITE',
    access: { level: 'team', minimumRole: 'ADMIN', permission: 'eventType.create' },
    params: teamParams,
    body: teamEventTypeBody,
    response: {
      status: 201,
      description: 'The event type',
      schema: eventTypeOutput,
      errors: { 409: 'An event type with this slug already exists' },
    },
    handler: async ({ deps, params, body }) => {
      const knex = deps.stores.db.knex;
      await requireTeam(knex, params.teamId);
      const members = new Set(await acceptedTeamMembers(knex, params.teamId, body.hostUserIds));
      const strangers = body.hostUserIds.filter((id) => !members.has(id));
      if (strangers.length > 0) {
        throw new BadRequestError(
          `hostUserIds must be accepted members of the team: ${strangers.join(', ')}`,
          strangers.map((id) => ({
            field: 'body.hostUserIds',
            message: `user ${id} is not an accepted member of the team`,
          })),
        );
      }
      const eventType = await createTeamEventType(knex, params.teamId, body);
      return { status: 201, data: presentEventType(eventType) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/teams/:teamId/event-types',
    summary: "The team's event types",
    tags: TAGS,
    auth: 'user',
    scope: 'TEAM_EVENT_TYPE_READ',
    access: { level: 'team', minimumRole: 'MEMBER', permission: 'eventType.read' },
    params: teamParams,
    response: { status: 200, description: 'Event types', schema: z.array(eventTypeOutput) },
    handler: async ({ deps, params }) => {
      const knex = deps.stores.db.knex;
      await requireTeam(knex, params.teamId);
      return { data: (await listTeamEventTypes(knex, params.teamId)).map(presentEventType) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/teams/:teamId/event-types/:eventTypeId',
    summary: 'One event type of the team',
    tags: TAGS,
    auth: 'user',
    scope: 'TEAM_EVENT_TYPE_READ',
    access: { level: 'team', minimumRole: 'MEMBER', permission: 'eventType.read' },
    params: teamEventTypeParams,
    response: { status: 200, description: 'The event type', schema: eventTypeOutput },
    handler: async ({ deps, params }) => {
      const eventType = await findEventTypeById(deps.stores.db.knex, params.eventTypeId);
      if (!eventType || eventType.teamId !== params.teamId) throw new NotFoundError('Event type not found');
      return { data: presentEventType(eventType) };
    },
  }),
];
