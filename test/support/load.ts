// Steady load for tests that change processes under traffic (rolling restart, kill -9): a few
// workers send requests back to back until stopped, and every outcome is kept. Correctness only;
// speed belongs in `npm run bench`.

export interface LoadRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** The status a served request gets. */
  expect: number;
}

export interface LoadOutcome {
  method: string;
  url: string;
  /** 0 when no answer came (connection refused or reset). */
  status: number;
  ok: boolean;
  error?: string;
  /** The process that answered (the test gateway's X-Upstream header), when known. */
  upstream?: string;
  startedAt: number;
  endedAt: number;
}

export interface RunningLoad {
  /** Outcomes so far. */
  outcomes: LoadOutcome[];
  /** Requests in flight right now. */
  inFlight(): number;
  /** Resolves once `count` more requests completed (the load is flowing). */
  progress(count: number): Promise<void>;
  stop(): Promise<LoadOutcome[]>;
}

/**
 * `workers` loops, each sending `requests[i % length]` in turn, waiting `pauseMs` after each
 * answer (a steady load that leaves the machine's cores to the processes being restarted).
 */
export function startLoad(requests: readonly LoadRequest[], workers: number, pauseMs = 0): RunningLoad {
  const outcomes: LoadOutcome[] = [];
  let stopped = false;
  let inFlight = 0;
  let next = 0;
  const waiters: Array<{ target: number; wake: () => void }> = [];

  async function send(request: LoadRequest): Promise<void> {
    const startedAt = Date.now();
    inFlight++;
    try {
      const init: RequestInit = { method: request.method, signal: AbortSignal.timeout(30_000) };
      if (request.headers) init.headers = request.headers;
      if (request.body !== undefined) init.body = request.body;
      const response = await fetch(request.url, init);
      await response.arrayBuffer();
      outcomes.push({
        method: request.method,
        url: request.url,
        status: response.status,
        ok: response.status === request.expect,
        upstream: response.headers.get('x-upstream') ?? undefined,
        startedAt,
        endedAt: Date.now(),
      });
    } catch (error) {
      outcomes.push({
        method: request.method,
        url: request.url,
        status: 0,
        ok: false,
        error: String((error as Error).cause ?? error),
        startedAt,
        endedAt: Date.now(),
      });
    } finally {
      inFlight--;
    }
    for (const waiter of waiters.filter((w) => outcomes.length >= w.target)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.wake();
    }
  }

  const loops = Array.from({ length: workers }, async () => {
    while (!stopped) {
      await send(requests[next++ % requests.length]!);
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  });

  return {
    outcomes,
    inFlight: () => inFlight,
    progress: (count) =>
      new Promise((resolve) => {
        waiters.push({ target: outcomes.length + count, wake: resolve });
      }),
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return outcomes;
    },
  };
}

/** The failed outcomes, one line each (when, and which process answered), for an assertion message. */
export const describeFailures = (outcomes: readonly LoadOutcome[]): string =>
  outcomes
    .filter((outcome) => !outcome.ok)
    .map(
      (outcome) =>
        `${new Date(outcome.startedAt).toISOString()} +${outcome.endedAt - outcome.startedAt}ms ` +
        `${outcome.method} ${outcome.url} -> ${outcome.status} ${outcome.upstream ?? ''} ${outcome.error ?? ''}`,
    )
    .join('\n');
