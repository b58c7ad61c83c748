import calculateSlot from 'cluster-key-slot';
import type { Cluster } from 'ioredis';

type Values = (string | null)[];

/**
 * `MGET` of keys spread over a Redis Cluster in at most one round trip per node: the keys are
 * grouped by slot (an `MGET` must stay in one slot), the slots by the node serving them, and each
 * node gets its slots' `MGET`s in one pipeline. The values come back in the order of `keys`.
 * A slot map that changed since (a failover) makes the pipeline's replies redirections: ioredis
 * follows a pipeline's redirection only while every reply names the same one, so the node's slots
 * are read again one `MGET` each, through the client's per-command redirection handling, and the
 * slot map is refreshed for the next read. What still fails during a promotion is an outage (503).
 */
export async function mgetByNode(cluster: Cluster, keys: readonly string[]): Promise<Values> {
  const bySlot = new Map<number, number[]>();
  for (let i = 0; i < keys.length; i++) {
    const slot = calculateSlot(keys[i]!);
    const positions = bySlot.get(slot);
    if (positions) positions.push(i);
    else bySlot.set(slot, [i]);
  }
  const byNode = new Map<string, number[][]>();
  for (const [slot, positions] of bySlot) {
    // Before the slot map is known, ioredis routes the pipeline by its first key.
    const node = cluster.slots[slot]?.[0] ?? '';
    const groups = byNode.get(node);
    if (groups) groups.push(positions);
    else byNode.set(node, [positions]);
  }
  const values: Values = new Array(keys.length).fill(null);
  await Promise.all(
    [...byNode.values()].map(async (groups) => {
      const pipeline = cluster.pipeline();
      for (const positions of groups) pipeline.mget(positions.map((i) => keys[i]!));
      let replies = (await pipeline.exec()) ?? [];
      if (replies.some(([error]) => isRedirection(error))) {
        cluster.refreshSlotsCache();
        replies = await Promise.all(
          groups.map((positions) =>
            cluster.mget(positions.map((i) => keys[i]!)).then(
              (reply): [Error | null, unknown] => [null, reply],
              (error: Error): [Error | null, unknown] => [error, null],
            ),
          ),
        );
      }
      groups.forEach((positions, g) => {
        const [error, reply] = replies[g] ?? [new Error('no reply to MGET')];
        if (error) throw error;
        positions.forEach((at, j) => {
          values[at] = (reply as Values)[j] ?? null;
        });
      });
    }),
  );
  return values;
}

/** A MOVED or ASK reply: the slot is served by another node than the client's map says. */
function isRedirection(error: Error | null): boolean {
  return error !== null && /^(MOVED|ASK) /.test(error.message);
}
