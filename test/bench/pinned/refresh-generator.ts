import { text } from 'node:stream/consumers';
import autocannon from 'autocannon';
import type { LoadResult } from '../load.ts';
import { type Chain, type Clock, failures, rotatingRefreshRequests } from '../refresh-load.ts';

/**
 * Generator process (generator.ts's refreshLoad): `amount` refresh grants with rotation against
 * `url` + `path`, each request taking a live refresh token from the pool and putting the one it
 * receives back. Counted in requests, not seconds: autocannon ends each connection after its last
 * answer, so no refresh token is lost in flight between rounds. Answers with the round's figures
 * and the pool as it is now (the parent keeps it for the next round).
 */

export interface RefreshLoadInput {
  url: string;
  path: string;
  pool: Chain[];
  amount: number;
  connections: number;
}

export interface RefreshLoadOutput {
  result: LoadResult;
  pool: Chain[];
  /** Unexpected answers (body, count), so a broken chain is explained. */
  failures: [string, number][];
}

const input = JSON.parse(await text(process.stdin)) as RefreshLoadInput;
const clock: Clock = { started: performance.now(), lastAnswer: 0, answers: 0 };
const result = await autocannon({
  url: input.url,
  connections: input.connections,
  amount: input.amount,
  requests: rotatingRefreshRequests(input.pool, input.path, clock),
});
const seconds = Math.max(0.001, (clock.lastAnswer - clock.started) / 1000);
const output: RefreshLoadOutput = {
  result: {
    tool: 'autocannon',
    requests: clock.answers,
    requestsPerSecond: Math.round(clock.answers / seconds),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  },
  pool: input.pool,
  failures: [...failures],
};
process.stdout.write(JSON.stringify(output));
