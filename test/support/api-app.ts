import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiApp } from '@sched/api/app';
import type { AnyRoute } from '@sched/api/routing/route';
import type { Stores } from '@sched/db/stores';
import type { Config } from '@sched/kit/config';
import { createLogger, type Logger } from '@sched/kit/logger';
import { openCalendars, type Runtime } from '@sched/runtime/runtime';

/**
 * The runtime of an API app that a test or a benchmark builds on stores it already has: no mail
 * is sent, nothing is closed with it (the stores' owner closes them), fixed cookie keys.
 */
export function apiRuntime(
  config: Config,
  stores: Stores,
  logger: Logger = createLogger({ level: 'silent' }),
): Runtime {
  const runtimeConfig = {
    ...config,
    cookieKeys: ['test-cookie-key-0123456789abcdefghijklmnop'],
    encryptionKey: config.encryptionKey ?? 'test-encryption-key-0123456789abcdefghijkl',
  };
  return {
    config: runtimeConfig,
    logger,
    stores,
    mailer: { send: async () => {}, close: () => {} },
    calendars: openCalendars(runtimeConfig, logger, stores),
    close: async () => {},
  };
}

export interface ServedApi {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** `createApiApp(runtime, routes)` on a port of its own on 127.0.0.1 (all routes unless given). */
export async function serveApiApp(runtime: Runtime, routes?: readonly AnyRoute[]): Promise<ServedApi> {
  const server = createServer(createApiApp(runtime, routes).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
