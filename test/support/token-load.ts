import { tokenRequest } from './oauth.ts';

// Token traffic for the failover test: workers rotate refresh tokens (one chain per grant) and use
// every access token they get at once, keeping a record of each token the server acknowledged, so
// the test can check afterwards that none was lost.

export interface Chain {
  clientId: string;
  secret: string;
  refreshToken: string;
  accessToken: string;
  /** Set when the server no longer knows the chain's refresh token (400 invalid_grant): dropped. */
  lost?: boolean;
}

/** A refresh the server answered 200: its tokens exist (unless the master lost them). */
export interface AcknowledgedRefresh {
  chain: number;
  accessToken: string;
  refreshToken: string;
  /** When the request was sent and when its answer arrived (Date.now()). */
  sentAt: number;
  answeredAt: number;
}

export interface TokenLoadOutcome {
  kind: 'refresh' | 'read';
  chain: number;
  status: number;
  sentAt: number;
  answeredAt: number;
  body?: string;
}

export interface RunningTokenLoad {
  acknowledged: AcknowledgedRefresh[];
  outcomes: TokenLoadOutcome[];
  chains: Chain[];
  /** Resolves once `count` more refreshes were acknowledged. */
  progress(count: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `workers` loops over `chains` (worker i takes chains i, i + workers, ...): refresh, then
 * `GET readPath` with the new access token. A refresh answered otherwise than 200 keeps the old
 * refresh token, to be tried again (the server's retry window answers a replay), except after a
 * 400 invalid_grant: the chain is marked lost and left alone.
 */
export function startTokenLoad(
  baseUrl: string,
  chains: Chain[],
  workers: number,
  readPath = '/v2/me',
): RunningTokenLoad {
  const acknowledged: AcknowledgedRefresh[] = [];
  const outcomes: TokenLoadOutcome[] = [];
  const waiters: Array<{ target: number; wake: () => void }> = [];
  let stopped = false;

  const wakeWaiters = () => {
    for (const waiter of waiters.filter((w) => acknowledged.length >= w.target)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.wake();
    }
  };

  async function step(index: number): Promise<void> {
    const chain = chains[index]!;
    const sentAt = Date.now();
    let status = 0;
    let body: Record<string, unknown> = {};
    try {
      const response = await tokenRequest(baseUrl, {
        grant_type: 'refresh_token',
        client_id: chain.clientId,
        client_secret: chain.secret,
        refresh_token: chain.refreshToken,
      });
      status = response.status;
      body = response.body;
    } catch {
      // no answer (a connection reset): status 0
    }
    const answeredAt = Date.now();
    outcomes.push({
      kind: 'refresh',
      chain: index,
      status,
      sentAt,
      answeredAt,
      ...(status === 200 ? {} : { body: JSON.stringify(body) }),
    });
    if (status === 400 && body.error === 'invalid_grant') chain.lost = true;
    if (status !== 200) return;
    chain.refreshToken = body.refresh_token as string;
    chain.accessToken = body.access_token as string;
    acknowledged.push({
      chain: index,
      accessToken: chain.accessToken,
      refreshToken: chain.refreshToken,
      sentAt,
      answeredAt,
    });
    wakeWaiters();
    const readSentAt = Date.now();
    const read = await fetch(new URL(readPath, baseUrl), {
      headers: { authorization: `Bearer ${chain.accessToken}` },
    }).catch(() => undefined);
    const readBody = read ? await read.text() : '';
    outcomes.push({
      kind: 'read',
      chain: index,
      status: read?.status ?? 0,
      sentAt: readSentAt,
      answeredAt: Date.now(),
      ...(read?.status === 200 ? {} : { body: readBody }),
    });
  }

  const loops = Array.from({ length: workers }, async (_, worker) => {
    const mine = chains.map((_, index) => index).filter((index) => index % workers === worker);
    for (let turn = 0; !stopped; turn++) {
      const live = mine.filter((index) => !chains[index]!.lost);
      if (live.length === 0) return;
      await step(live[turn % live.length]!);
    }
  });

  return {
    acknowledged,
    outcomes,
    chains,
    progress: (count) =>
      new Promise((resolve) => {
        waiters.push({ target: acknowledged.length + count, wake: resolve });
      }),
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}
