import { join } from 'node:path';
import { type Stores, openStores } from '@sched/db/stores';
import { bootService } from '@sched/kit/boot';
import { type Config, requireStandaloneServers } from '@sched/kit/config';
import type { Logger } from '@sched/kit/logger';
import { createMailer, type Mailer } from '@sched/kit/mailer';
import type Koa from 'koa';
import { startOutboxWorker } from './mail-outbox-worker.ts';

/** Everything a service needs from the process: config, logging, data stores, mail. */
export interface Runtime {
  config: Config & { cookieKeys: string[] };
  logger: Logger;
  stores: Stores;
  mailer: Mailer;
  close(): Promise<void>;
}

/** Opens the stores the config names, unless the caller hands in stores it opened (tests). */
export async function openRuntime(
  config: Config & { cookieKeys: string[] },
  logger: Logger,
  given?: Stores,
): Promise<Runtime> {
  const stores =
    given ??
    (await openStores({
      databaseUrl: config.databaseUrl,
      redisUrl: config.redisUrl,
      pgliteDir: join(config.dataDir, 'pg'),
      log: { warn: (message) => logger.warn(message), debug: (message) => logger.debug(message) },
      outageLog: logger,
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
    close: async () => {
      mailer.close();
      await stores.close();
    },
  };
}

/** Entry point of a deployable that runs alone (production): real Postgres, Redis and cookie keys. */
export function runStandaloneService(name: string, createApp: (runtime: Runtime) => Koa) {
  return bootService(name, async (config, logger) => {
    requireStandaloneServers(config);
    const runtime = await openRuntime(config, logger);
    // Both services write review e-mails to the outbox; each replica retries failed ones.
    const outbox = startOutboxWorker(runtime);
    return {
      handler: createApp(runtime).callback(),
      checks: runtime.stores.checks,
      onClose: async () => {
        await outbox.stop();
        await runtime.close();
      },
    };
  });
}
