import type { Socket } from 'node:net';
import type { Redis } from 'ioredis';

/**
 * The commands a Redis client is given during one turn of the event loop leave together, in one
 * socket write at the turn's end (after the I/O callbacks of the turn, `setImmediate`).
 *
 * Why: without it every command is a write system call of its own, and on a busy server the
 * requests parsed in one turn each send theirs (the token endpoint: a rate-limit count per request,
 * then the tokens it issues). On loopback a write costs the sender the receiver's TCP work too; the
 * token endpoint spent about a fifth of its process time in them (npm run bench token-endpoint).
 * ioredis's own auto-pipelining does not help: it groups per `process.nextTick`, that is per
 * socket callback, so the requests of different connections never share a write, and it keeps
 * command objects alive across young-generation collections (see redis.ts).
 *
 * Order is kept: the socket is corked, not reordered, so a command still reaches Redis after every
 * command issued before it (the freshness rule of mget-batch.ts holds unchanged).
 */
export interface RedisTurn {
  /**
   * Runs `task` at the end of the current turn, before that turn's commands leave: a command the
   * task issues (a batched read) goes out in the same write.
   */
  atEnd(task: () => void): void;
  /**
   * Corks `socket` (the client's current connection) until the turn's end, if it is not corked
   * yet: for a command written to it without passing `sendCommand` (queued-command.ts).
   */
  join(socket: Socket): void;
}

const turns = new WeakMap<object, RedisTurn>();

/** The turn of a client set up by `coalesceWrites`, if any. */
export function turnOf(redis: object): RedisTurn | undefined {
  return turns.get(redis);
}

/** Makes `redis` send each turn's commands in one write (idempotent). */
export function coalesceWrites(redis: Redis): RedisTurn {
  const existing = turns.get(redis);
  if (existing) return existing;

  let corked: Socket | undefined;
  let scheduled = false;
  let ending = false;
  let tasks: Array<() => void> = [];

  function endTurn(): void {
    scheduled = false;
    ending = true;
    const due = tasks;
    tasks = [];
    for (const task of due) {
      try {
        task();
      } catch (error) {
        // As a throwing timer callback would: uncaught, but only after the other tasks ran and
        // the turn's commands left, so no other caller waits forever on a corked socket.
        process.nextTick(() => {
          throw error;
        });
      }
    }
    ending = false;
    const socket = corked;
    corked = undefined;
    socket?.uncork();
    // A task that asked for the end of a turn while this one ended gets the next.
    if (tasks.length > 0) schedule();
  }

  function schedule(): void {
    if (scheduled || ending) return;
    scheduled = true;
    setImmediate(endTurn);
  }

  function join(socket: Socket): void {
    if (corked !== undefined || socket.destroyed) return;
    socket.cork();
    corked = socket;
    schedule();
  }

  const send = redis.sendCommand.bind(redis);
  // `stream` is ioredis's current connection (replaced on reconnect). Commands sent while it is
  // not ready wait in ioredis's offline queue and are written by ioredis itself, uncorked.
  redis.sendCommand = ((...args: Parameters<Redis['sendCommand']>) => {
    if (corked === undefined && redis.status === 'ready') {
      const socket = redis.stream as Socket | undefined;
      if (socket) join(socket);
    }
    return send(...args);
  }) as Redis['sendCommand'];

  const turn: RedisTurn = {
    atEnd(task) {
      tasks.push(task);
      schedule();
    },
    join,
  };
  turns.set(redis, turn);
  return turn;
}
