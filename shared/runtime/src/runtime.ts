import { join } from 'node:path';
import { CredentialsBox } from '@sched/calendars/credentials-box';
import { calendarFetch } from '@sched/calendars/outbound';
import { type CalendarService, createCalendarService } from '@sched/calendars/service';
import { missingMigrations } from '@sched/db/migrate';
import { type Stores, openStores } from '@sched/db/stores';
import { bootService } from '@sched/kit/boot';
import { longestTokenLifetime, requireStandaloneServers } from '@sched/kit/config';
import type { Logger } from '@sched/kit/logger';
import { createMailer } from '@sched/kit/mailer';
import type Koa from 'koa';
import { startCalendarWriteWorker } from './calendar-write-worker.ts';
import { startOutboxWorker } from './mail-outbox-worker.ts';
import type { Runtime, RuntimeConfig } from './runtime-types.ts';

export type { Runtime, RuntimeConfig } from './runtime-types.ts';

/** The calendar service of a runtime (connections, busy times, connectors). */
export function openCalendars(config: RuntimeConfig, logger: Logger, stores: Stores): CalendarService {
  return createCalendarService({
    knex: stores.db.knex,
    logger,
    box: new CredentialsBox(config.encryptionKey),
    fetch: calendarFetch(config.outboundPrivateNetworks),
    providers: config.calendarProviders,
  });
}

/** Opens the stores the config names, unless the caller hands in stores it opened (tests). */
export async function openRuntime(config: RuntimeConfig, logger: Logger, given?: Stores): Promise<Runtime> {
  const stores =
    given ??
    (await openStores({
      databaseUrl: config.databaseUrl,
      redisUrl: config.redisUrl,
      pgliteDir: join(config.dataDir, 'pg'),
      log: { warn: (message) => logger.warn(message), debug: (message) => logger.debug(message) },
      outageLog: logger,
      longestTokenLifetime: longestTokenLifetime(config.tokenTtl),
    }));
  const mailer = createMailer({
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    outboxDir: join(config.dataDir, 'mail'),
    logger,
  });
  return {
    config,
    logger,
    stores,
    mailer,
    calendars: openCalendars(config, logger, stores),
    close: async () => {
      mailer.close();
      await stores.close();
    },
  };
}

/** A standalone service started on a database its migrations have not reached. */
export class SchemaOutdatedError extends Error {
  override name = 'SchemaOutdatedError';
}

/**
 * The standalone services do not migrate (the deployment's one-shot `migrate` step does): on a
 * database that lacks this code's migrations they would report ready and answer 500s, so they
 * refuse to start instead, saying what to run.
 */
async function refuseOutdatedSchema(runtime: Runtime): Promise<void> {
  const missing = await missingMigrations(runtime.stores.db.knex);
  if (missing.length === 0) return;
  await runtime.close();
  throw new SchemaOutdatedError(
    `the database (DATABASE_URL) lacks ${missing.length} migration(s) of this version, from ${missing[0]}: run \`npm run cli -- migrate\` (docker compose: the migrate service) first`,
  );
}

/** Entry point of a deployable that runs alone (production): real Postgres, Redis and cookie keys. */
export function runStandaloneService(name: string, createApp: (runtime: Runtime) => Koa) {
  return bootService(name, async (config, logger) => {
    requireStandaloneServers(config);
    const runtime = await openRuntime(config, logger);
    await refuseOutdatedSchema(runtime);
    // Both services write review e-mails to the outbox; each replica retries failed ones.
    const outbox = startOutboxWorker(runtime);
    // Bookings reach the hosts' calendars through the write queue; each replica works it.
    const calendarWrites = startCalendarWriteWorker(runtime);
    return {
      handler: createApp(runtime).callback(),
      checks: runtime.stores.checks,
      onClose: async () => {
        await outbox.stop();
        await calendarWrites.stop();
        await runtime.close();
      },
    };
  });
}
