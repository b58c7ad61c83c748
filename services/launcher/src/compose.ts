import { createApiApp } from '@sched/api/app';
import { createAuthApp, isAuthPath } from '@sched/auth/app';
import { keyEncryptionSecrets } from '@sched/auth/keys/signing-keys';
import type { Knex } from '@sched/db/connection';
import { migrateLatest } from '@sched/db/migrate';
import type { ServiceAdminInput } from '@sched/db/queries/admin';
import type { BootedService } from '@sched/kit/boot';
import type { Config } from '@sched/kit/config';
import type { Logger } from '@sched/kit/logger';
import type { Stores } from '@sched/db/stores';
import {
  type CalendarWriteWorkerOptions,
  startCalendarWriteWorker,
} from '@sched/runtime/calendar-write-worker';
import { startOutboxWorker } from '@sched/runtime/mail-outbox-worker';
import { openRuntime } from '@sched/runtime/runtime';
import { bootstrapServiceAdmin } from './bootstrap-admin.ts';
import { startControlSocket } from './control-socket.ts';
import { loadOrCreateCookieKeys, loadOrCreateEncryptionKey, lockDataDir } from './data-dir.ts';
import { startTokenSweeper } from './token-sweeper.ts';

/**
 * The whole system: the authorization server and the resource API in one process on one origin.
 * Without DATABASE_URL the data lives in an embedded PGlite under DATA_DIR, and what Redis would
 * hold is kept in that database too, so nothing is lost on restart.
 */
export async function composeSystem(
  config: Config,
  logger: Logger,
  options: { stores?: Stores; calendarWrites?: CalendarWriteWorkerOptions } = {},
): Promise<BootedService> {
  const embedded = config.databaseUrl === undefined && options.stores === undefined;
  const releaseDataDir = embedded ? await lockDataDir(config.dataDir) : async () => {};
  try {
    const cookieKeys = config.cookieKeys ?? (await loadOrCreateCookieKeys(config.dataDir));
    const encryptionKey = config.encryptionKey ?? (await loadOrCreateEncryptionKey(config.dataDir));
    const runtime = await openRuntime({ ...config, cookieKeys, encryptionKey }, logger, options.stores);
    const { knex } = runtime.stores.db;
    const applied = await migrateLatest(knex);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
    if (config.bootstrapAdmin) await bootstrapAdmin(knex, config.bootstrapAdmin, logger);
    const auth = createAuthApp(runtime).callback();
    const api = createApiApp(runtime).callback();
    const stopControlSocket = embedded
      ? await startControlSocket(config.dataDir, knex, logger, {
          signingKeys: {
            secrets: keyEncryptionSecrets({ keyEncryptionKey: config.keyEncryptionKey, cookieKeys }),
            alg: config.idTokenSigningAlg,
          },
          versions: runtime.stores.tokenStore,
          runtime,
          dataDir: config.dataDir,
          appUrl: config.appUrl,
        })
      : async () => {};
    const stopSweeper = startTokenSweeper(runtime.stores.tokenStore, logger);
    const outbox = startOutboxWorker(runtime);
    const calendarWrites = startCalendarWriteWorker(runtime, options.calendarWrites);
    return {
      handler: (req, res) =>
        isAuthPath((req.url ?? '/').split('?')[0] ?? '/') ? auth(req, res) : api(req, res),
      checks: runtime.stores.checks,
      // One public origin: metrics stay off it unless METRICS_ENABLED=true.
      metricsByDefault: false,
      onClose: async () => {
        stopSweeper();
        // Drains: a batch being sent finishes before the database closes.
        await outbox.stop();
        await calendarWrites.stop();
        await stopControlSocket();
        await runtime.close();
        await releaseDataDir();
      },
      describe: (url) => {
        const app = config.appUrl;
        const lines = {
          app,
          api: `${config.baseUrl}/v2`,
          authorize: `${app}/auth/oauth2/authorize`,
          // The authorization server's, like `authorize`: under APP_URL, as discovery says.
          token: `${app}/v2/auth/oauth2/token`,
          discovery: `${app}/.well-known/oauth-authorization-server`,
          docs: `${config.baseUrl}/v2/docs`,
          health: `${url}/health/ready`,
          data: embedded ? config.dataDir : 'DATABASE_URL',
        };
        process.stdout.write(
          `\nServing on ${url}\n${Object.entries(lines)
            .map(([k, v]) => `  ${k.padEnd(10)} ${v}`)
            .join('\n')}\n\n`,
        );
        return lines;
      },
    };
  } catch (error) {
    await releaseDataDir();
    throw error;
  }
}

/** ADMIN_EMAIL / ADMIN_PASSWORD (bootstrap-admin.ts): the service starts whatever the outcome. */
async function bootstrapAdmin(knex: Knex, admin: ServiceAdminInput, logger: Logger): Promise<void> {
  const outcome = await bootstrapServiceAdmin(knex, admin);
  if (!outcome.made) {
    logger.error({ email: admin.email }, `bootstrap service administrator not made: ${outcome.reason}`);
    return;
  }
  const kept = outcome.passwordKept ? ' (its own password kept)' : '';
  logger.info({ userId: outcome.userId, email: admin.email }, `bootstrap service administrator ready${kept}`);
}
