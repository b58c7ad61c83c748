import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from './process.ts';
import { freePorts, RedisServerProcess, redisCli, waitUntil } from './redis-server.ts';

/**
 * A real Sentinel set-up on loopback from Debian's redis-server: one master, one replica and three
 * sentinels (quorum 2) watching the master set `masterName`. `url` is its redis+sentinel:// URL.
 */
export interface TestRedisSentinel {
  url: string;
  masterName: string;
  master: RedisServerProcess;
  replica: RedisServerProcess;
  sentinels: RedisServerProcess[];
  /** The port the sentinels name as master right now. */
  currentMasterPort(): Promise<number>;
  /** Kills (SIGKILL) the current master and waits until the sentinels promoted the replica. */
  killMaster(): Promise<RedisServerProcess>;
  stop(): Promise<void>;
}

const MASTER_NAME = 'schedmaster';

export async function startRedisSentinel(): Promise<TestRedisSentinel> {
  const dir = await tempDir('sched-redis-sentinel-');
  const [masterPort, replicaPort, ...sentinelPorts] = await freePorts(5);
  const dataArgs = ['--save', '', '--appendonly', 'no'];
  const master = new RedisServerProcess(masterPort!, join(dir.path, 'master'), dataArgs);
  const replica = new RedisServerProcess(replicaPort!, join(dir.path, 'replica'), [
    ...dataArgs,
    '--replicaof',
    '127.0.0.1',
    String(masterPort),
  ]);
  const sentinels: RedisServerProcess[] = [];
  for (const port of sentinelPorts) {
    // A sentinel rewrites its config file (what it learnt): each has its own, writable.
    const file = join(dir.path, `sentinel-${port}.conf`);
    await writeFile(
      file,
      [
        `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${masterPort} 2`,
        `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
        `sentinel failover-timeout ${MASTER_NAME} 5000`,
        `sentinel parallel-syncs ${MASTER_NAME} 1`,
        '',
      ].join('\n'),
    );
    sentinels.push(new RedisServerProcess(port, join(dir.path, `sentinel-${port}`), [file, '--sentinel']));
  }
  const all = [master, replica, ...sentinels];

  async function currentMasterPort(): Promise<number> {
    const live = sentinels.find((sentinel) => sentinel.answering)!;
    const reply = await redisCli(live.port, 'SENTINEL', 'get-master-addr-by-name', MASTER_NAME);
    return Number(reply.split('\n')[1]);
  }

  const setUp: TestRedisSentinel = {
    url: `redis+sentinel://${sentinelPorts.map((port) => `127.0.0.1:${port}`).join(',')}/${MASTER_NAME}`,
    masterName: MASTER_NAME,
    master,
    replica,
    sentinels,
    currentMasterPort,
    async killMaster() {
      const before = await currentMasterPort();
      const victim = all.find((node) => node.port === before)!;
      await victim.stop('SIGKILL');
      await waitUntil('the sentinels promoted the replica', 30_000, async () => {
        const now = await currentMasterPort();
        if (now === before) return false;
        const role = await redisCli(now, 'ROLE');
        return role.startsWith('master');
      });
      return victim;
    },
    async stop() {
      await Promise.all(all.map((node) => node.stop('SIGKILL')));
      await dir.remove();
    },
  };

  try {
    await master.start();
    await replica.start();
    await waitUntil('the replica in sync', 15_000, async () =>
      (await redisCli(replica.port, 'INFO', 'replication')).includes('master_link_status:up'),
    );
    await Promise.all(sentinels.map((sentinel) => sentinel.start()));
    // A failover needs a quorum that knows each other and the replica (hello messages, ~2 s).
    await waitUntil('the sentinels know each other and the replica', 30_000, async () => {
      for (const sentinel of sentinels) {
        const fields = (await redisCli(sentinel.port, 'SENTINEL', 'master', MASTER_NAME)).split('\n');
        const value = (name: string) => fields[fields.indexOf(name) + 1];
        if (value('num-other-sentinels') !== '2' || value('num-slaves') !== '1') return false;
      }
      return true;
    });
  } catch (error) {
    await setUp.stop();
    throw error;
  }
  return setUp;
}
