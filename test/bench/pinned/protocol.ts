/**
 * The messages between the benchmark (parent) and a bench server process (child, IPC channel).
 * The parent sends `{type: 'stats', id}` before and after each round and `{type: 'close'}` at the
 * end; the child answers `ready` once, when it listens, and `stats` to each request.
 */

export interface ReadyMessage<T = unknown> {
  type: 'ready';
  /** What the server wants the parent to know: its URLs, headers, fixtures (JSON-serialisable). */
  data: T;
}

export interface StatsRequest {
  type: 'stats';
  id: number;
}

export interface StatsMessage {
  type: 'stats';
  id: number;
  /** Requests answered so far, per counter (a process may serve several targets). */
  requests: Record<string, number>;
  /** process.cpuUsage() user + system of the whole process (all threads, GC helpers included), µs. */
  cpuUs: number;
  /**
   * The system (kernel) part of cpuUs: sockets and memory mapping; a VM's system calls can cost
   * several times a bare host's. Absent from an older build's servers (BENCH_BEFORE).
   */
  systemUs?: number;
  /** performance.eventLoopUtilization() totals, ms: the share of time the loop was busy. */
  elu: { idle: number; active: number };
  /** Bytes allocated on the JS heap since the process started (see allocation.ts). */
  allocatedBytes: number;
}

export interface CloseRequest {
  type: 'close';
}
