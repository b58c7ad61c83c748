import { type Config, ConfigError, loadConfig } from './config.ts';
import {
  exitOnSignals,
  type ReadinessCheck,
  type RequestHandler,
  type RunningServer,
  startServiceServer,
} from './http/server.ts';
import { createLogger, type Logger } from './logger.ts';

/** Just above the gateway's idle keep-alive timeout (deploy/nginx.conf: 4 s). */
const IDLE_GRACE_MS = 5000;

export interface BootedService {
  handler: RequestHandler;
  checks: ReadinessCheck[];
  onClose: () => Promise<void>;
  /** Extra lines for the start-up message (e.g. the URLs served). */
  describe?: (url: string) => Record<string, string>;
  /** Whether `/metrics` is served unless METRICS_ENABLED says otherwise (default true). */
  metricsByDefault?: boolean;
}

/** `/metrics` of a service: METRICS_ENABLED over the service's default; METRICS_TOKEN. */
export const metricsOptions = (config: Config, service: Pick<BootedService, 'metricsByDefault'>) => ({
  enabled: config.metrics.enabled ?? service.metricsByDefault ?? true,
  token: config.metrics.token,
});

/**
 * Why the server could not listen, naming the variable to change (PORT or HOST) for the errors an
 * operator causes; any other error as it is.
 */
export function listenError(error: unknown, config: Pick<Config, 'port' | 'host'>): unknown {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new ConfigError(
        `Invalid configuration: PORT ${config.port} is in use on ${config.host} (another server runs there)`,
      );
    case 'EACCES':
      return new ConfigError(
        `Invalid configuration: PORT ${config.port} needs privileges this process lacks (use a port above 1023)`,
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
      return new ConfigError(
        `Invalid configuration: HOST ${config.host} is not an address of this machine (${(error as NodeJS.ErrnoException).code})`,
      );
    default:
      return error;
  }
}

/** One line on stderr, no stack: what an operator needs to fix the start-up. */
export function failStartup(error: unknown): never {
  const message =
    error instanceof Error
      ? `${error.name === 'Error' ? 'error' : error.name}: ${error.message}`
      : String(error);
  process.stderr.write(`${message.split('\n')[0]}\n`);
  process.exit(1);
}

/**
 * Entry-point scaffolding shared by every deployable: config, logger, the service's own start,
 * the HTTP server with health and metrics, and signal handling.
 */
export async function bootService(
  name: string,
  start: (config: Config, logger: Logger) => Promise<BootedService>,
): Promise<RunningServer> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    failStartup(error);
  }
  const logger = createLogger({ level: config.logLevel, name });
  let service: BootedService;
  try {
    service = await start(config, logger);
  } catch (error) {
    logger.debug({ err: error }, 'start-up failed');
    failStartup(error);
  }
  const running = await startServiceServer({
    name,
    port: config.port,
    host: config.host,
    logger,
    handler: service.handler,
    checks: service.checks,
    onClose: service.onClose,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    // Behind a gateway (TRUST_PROXY) the gateway pools connections: let it close its idle ones.
    idleGraceMs: config.trustProxy ? IDLE_GRACE_MS : 0,
    metrics: metricsOptions(config, service),
    publicUrls: [config.appUrl, config.baseUrl],
  }).catch((error: unknown) => failStartup(listenError(error, config)));
  exitOnSignals(running.close, logger);
  logger.info({ url: running.url, ...service.describe?.(running.url) }, `${name} listening`);
  return running;
}
