import type { TokenStore } from '@sched/db/token-store/types';
import type { Logger } from '@sched/kit/logger';

const SWEEP_EVERY_MS = 10 * 60 * 1000;

/** The SQL token store keeps expired rows until swept (they are never returned); Redis expires keys itself. */
export function startTokenSweeper(tokenStore: TokenStore, logger: Logger): () => void {
  if (!tokenStore.sweepExpired) return () => {};
  const sweep = tokenStore.sweepExpired.bind(tokenStore);
  const timer = setInterval(() => {
    sweep().then(
      (removed) => logger.debug({ removed }, 'expired token records swept'),
      (error: unknown) => logger.warn({ err: error }, 'token sweep failed'),
    );
  }, SWEEP_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
