import { Redis, type RedisOptions } from 'ioredis';

/**
 * The client of a Sentinel-managed master, which only its caller ends (`disconnect()`, `quit()`).
 *
 * ioredis ends such a client for good, every command then failing with "Connection is closed.",
 * when its failover detector sees +switch-master while a reconnection is asking a sentinel where
 * the master is: the detector's disconnect is taken for the caller's, the reconnection abandoned.
 * That is a failover meeting a slow sentinel, the moment the client exists for. Here an end the
 * caller did not ask for is followed, after `restartDelayMs`, by a new connection.
 */
export class SentinelClient extends Redis {
  #closedByCaller = false;

  constructor(options: RedisOptions, restartDelayMs: number) {
    super(options);
    this.on('end', () => {
      if (this.#closedByCaller) return;
      setTimeout(() => {
        // connect() reports a failure as an 'error' event too, and the next 'end' comes here again.
        if (!this.#closedByCaller && this.status === 'end') this.connect().catch(() => {});
      }, restartDelayMs).unref();
    });
  }

  override disconnect(reconnect = false): void {
    if (!reconnect) this.#closedByCaller = true;
    super.disconnect(reconnect);
  }

  override quit(...args: Parameters<Redis['quit']>): ReturnType<Redis['quit']> {
    this.#closedByCaller = true;
    return super.quit(...args);
  }
}
