import { join } from 'node:path';
import { type Gateway, startGateway } from '../../deploy/gateway/processes.ts';
import type { TestFn } from 'ava';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { tempDir } from './process.ts';
import { setUpForFile } from './read-through.ts';
import { freePorts, RedisServerProcess } from './redis-server.ts';

/**
 * N auth and M API processes behind nginx (deploy/gateway), on a database of their own and a
 * redis-server of their own: their keys (rate-limit counters by client address among them) meet
 * no other test file's. Needs DATABASE_URL (the standalone services run on Postgres only).
 */
export interface TestGateway {
  url: string;
  gateway: Gateway;
  database: TestDatabase;
  redisUrl: string;
  stop(): Promise<void>;
}

export interface TestGatewayOptions {
  auth: number;
  api: number;
  /** Extra environment of every service (RATE_LIMITS, ...). */
  env?: Record<string, string>;
  /** A Redis of the caller's (a test cluster's redis+cluster:// URL); default: a redis-server of its own. */
  redisUrl?: string;
}

export const gatewayAvailable = (): boolean => Boolean(process.env.DATABASE_URL);

export async function startTestGateway(options: TestGatewayOptions): Promise<TestGateway> {
  const dir = await tempDir('sched-gateway-');
  const database = await createTestDatabase();
  const [redisPort] = options.redisUrl ? [undefined] : await freePorts(1);
  const redis = redisPort
    ? new RedisServerProcess(redisPort, join(dir.path, 'redis'), ['--save', '', '--appendonly', 'no'])
    : undefined;
  let gateway: Gateway | undefined;
  const stop = async () => {
    await gateway?.stop();
    await redis?.stop();
    await database.drop();
    await dir.remove();
  };
  try {
    await redis?.start();
    const redisUrl = options.redisUrl ?? `redis://127.0.0.1:${redisPort}`;
    gateway = await startGateway({
      auth: options.auth,
      api: options.api,
      dir: join(dir.path, 'nginx'),
      upstreamHeader: true,
      env: {
        ...process.env,
        DATABASE_URL: database.url,
        REDIS_URL: redisUrl,
        COOKIE_KEYS: 'gateway-test-cookie-key-0123456789abcdef',
        ENCRYPTION_KEY: 'test-encryption-key-0123456789abcdefghijkl',
        LOG_LEVEL: 'warn',
        ACCESS_LOG: 'false',
        ...options.env,
      },
    });
    return { url: gateway.url, gateway, database, redisUrl, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** One gateway for the whole test file (started in a serial before hook, stopped after). */
export function setUpTestGateway<Context>(test: TestFn<Context>, options: TestGatewayOptions): TestGateway {
  return setUpForFile(
    test,
    'the gateway',
    () => startTestGateway(options),
    (running) => running.stop(),
    { url: true, gateway: true, database: true, redisUrl: true, stop: true },
  );
}

/** Which service process answered (the test gateway's X-Upstream header), as `auth-1`, `api-2`. */
export function servedBy(gateway: Gateway, response: Response): string {
  const address = response.headers.get('x-upstream') ?? '';
  // After a retry nginx lists every address tried ("a, b"): the last one answered.
  const last = address.split(',').pop()?.trim() ?? '';
  const port = Number(last.split(':').pop());
  const match = [...gateway.auth, ...gateway.api].find((process) => process.port === port);
  return match?.name ?? `unknown (${address})`;
}
