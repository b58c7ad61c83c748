import type autocannon from 'autocannon';

/**
 * Refresh-token load for autocannon (token-endpoint and memory scenarios): every request takes a
 * live refresh token from a shared pool and puts the one it receives back, so rotation goes on for
 * as long as the run lasts.
 */

/** Bodies of unexpected answers (printed after the run), so a broken chain is explained. */
export const failures = new Map<string, number>();

export interface Chain {
  clientId: string;
  secret: string;
  refreshToken: string;
}

/** When the round's answers arrived: autocannon's own timing only resolves whole seconds. */
export interface Clock {
  started: number;
  lastAnswer: number;
  answers: number;
}

/** autocannon request hooks that rotate refresh tokens through `pool`. */
export function rotatingRefreshRequests(pool: Chain[], path: string, clock: Clock): autocannon.Request[] {
  return [
    {
      method: 'POST',
      path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      setupRequest(request, context) {
        const chain = pool.shift();
        if (!chain) throw new Error('refresh token pool ran dry');
        (context as { chain?: Chain }).chain = chain;
        return {
          ...request,
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            client_id: chain.clientId,
            client_secret: chain.secret,
            refresh_token: chain.refreshToken,
          }).toString(),
        };
      },
      onResponse(status, body, context) {
        clock.answers++;
        clock.lastAnswer = performance.now();
        const chain = (context as { chain?: Chain }).chain;
        if (!chain) return;
        if (status === 200) {
          const parsed = JSON.parse(body) as { refresh_token: string };
          pool.push({ ...chain, refreshToken: parsed.refresh_token });
        } else if (status === 429) {
          pool.push(chain); // refused before use: try again later
        } else {
          failures.set(body, (failures.get(body) ?? 0) + 1);
        }
      },
    },
  ];
}
