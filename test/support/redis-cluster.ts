import { join } from 'node:path';
import { tempDir } from './process.ts';
import { freePorts, RedisServerProcess, redisCli, waitUntil } from './redis-server.ts';

/**
 * A real Redis Cluster on loopback: 3 masters and 3 replicas from Debian's redis-server, each in
 * its own folder of one temp dir. `url` is the redis+cluster:// REDIS_URL of it.
 */
export interface TestRedisCluster {
  url: string;
  nodes: RedisServerProcess[];
  /** The node serving `key`'s slot as master right now. */
  masterOf(key: string): Promise<RedisServerProcess>;
  /**
   * Kills (SIGKILL) the master serving `key` and waits until a replica took its slots over and
   * the cluster is ok again; returns the killed node (start() brings it back, as a replica).
   */
  killMasterOf(key: string): Promise<RedisServerProcess>;
  /** Waits until every running node says cluster_state:ok and agrees on the master of every slot. */
  waitHealthy(): Promise<void>;
  stop(): Promise<void>;
}

// Short enough for a test to see a failover within seconds, long enough for a loaded CI machine
// not to declare a busy node dead.
const NODE_TIMEOUT_MS = 2000;

interface NodeLine {
  id: string;
  port: number;
  master: boolean;
  failed: boolean;
  slots: Array<[number, number]>;
}

function parseNodes(text: string): NodeLine[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [id, address, flags, , , , , , ...slots] = line.trim().split(' ');
      const flagList = (flags ?? '').split(',');
      return {
        id: id!,
        port: Number(/:(\d+)@/.exec(address ?? '')?.[1]),
        master: flagList.includes('master'),
        failed: flagList.includes('fail') || flagList.includes('fail?'),
        slots: slots
          .filter((slot) => !slot.startsWith('['))
          .map((slot) => {
            const [from, to] = slot.split('-').map(Number);
            return [from!, to ?? from!] as [number, number];
          }),
      };
    });
}

export async function startRedisCluster(): Promise<TestRedisCluster> {
  const dir = await tempDir('sched-redis-cluster-');
  const ports = await freePorts(6, 10000);
  const nodes = ports.map(
    (port) =>
      new RedisServerProcess(port, join(dir.path, String(port)), [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        String(NODE_TIMEOUT_MS),
        '--save',
        '',
        '--appendonly',
        'no',
        // A replica promoted after its master died serves at once, even with a stale copy.
        '--cluster-replica-validity-factor',
        '0',
      ]),
  );
  const running = () => nodes.filter((node) => node.running);

  async function ownerPort(slot: number, via: RedisServerProcess): Promise<number | undefined> {
    const lines = parseNodes(await redisCli(via.port, 'CLUSTER', 'NODES'));
    return lines.find(
      (line) => line.master && !line.failed && line.slots.some(([from, to]) => slot >= from && slot <= to),
    )?.port;
  }

  const cluster: TestRedisCluster = {
    url: `redis+cluster://${ports
      .slice(0, 3)
      .map((port) => `127.0.0.1:${port}`)
      .join(',')}`,
    nodes,
    async masterOf(key) {
      const via = running()[0]!;
      const slot = Number(await redisCli(via.port, 'CLUSTER', 'KEYSLOT', key));
      const port = await ownerPort(slot, via);
      const node = nodes.find((candidate) => candidate.port === port);
      if (!node) throw new Error(`no master serves slot ${slot}`);
      return node;
    },
    async killMasterOf(key) {
      const victim = await cluster.masterOf(key);
      const slot = Number(await redisCli(victim.port, 'CLUSTER', 'KEYSLOT', key));
      await victim.stop('SIGKILL');
      await waitUntil(`a replica promoted for slot ${slot}`, 30_000, async () => {
        const port = await ownerPort(slot, running()[0]!);
        return port !== undefined && port !== victim.port;
      });
      await cluster.waitHealthy();
      return victim;
    },
    async waitHealthy() {
      await waitUntil('cluster_state:ok on every node', 30_000, async () => {
        for (const node of running()) {
          const info = await redisCli(node.port, 'CLUSTER', 'INFO');
          if (!info.includes('cluster_state:ok')) return false;
        }
        // Every running node sees the same live master for a sample of slots across the range.
        for (const slot of [0, 5500, 11000, 16383]) {
          const owners = new Set(await Promise.all(running().map((node) => ownerPort(slot, node))));
          if (owners.size !== 1 || owners.has(undefined)) return false;
        }
        return true;
      });
    },
    async stop() {
      await Promise.all(nodes.map((node) => node.stop('SIGKILL')));
      await dir.remove();
    },
  };

  try {
    await Promise.all(nodes.map((node) => node.start()));
    await redisCli(
      ports[0]!,
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    );
    await cluster.waitHealthy();
    // Every replica has its master's data stream before a test may kill that master.
    await waitUntil('replicas in sync', 30_000, async () => {
      const roles = await Promise.all(nodes.map((node) => redisCli(node.port, 'ROLE')));
      const replicas = roles.filter((role) => role.startsWith('slave'));
      return replicas.length === 3 && replicas.every((role) => role.includes('connected'));
    });
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}
