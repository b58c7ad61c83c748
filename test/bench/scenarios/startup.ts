import { childEnv, freePort, runScript, tempDir, waitForStatus } from '../../support/process.ts';

/**
 * `npm start` in embedded mode: time from spawn to GET /health/ready = 200 on a fresh data folder
 * (first start: initdb + migrations) and on a restart. Goal: the first start within 15 s.
 */
async function timeToReady(dataDir: string): Promise<number> {
  const port = await freePort();
  const server = runScript(
    'services/launcher/src/start.ts',
    [],
    childEnv({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' }),
  );
  const started = Date.now();
  try {
    await waitForStatus(`http://127.0.0.1:${port}/health/ready`, 200, 120_000, server);
    return Date.now() - started;
  } finally {
    server.process.kill('SIGTERM');
    await server.exited;
  }
}

export async function run(): Promise<void> {
  const dir = await tempDir('sched-bench-');
  try {
    const first = await timeToReady(dir.path);
    const restart = await timeToReady(dir.path);
    console.table([
      { start: 'first (fresh data folder)', msToReady: first, goalMs: 15_000 },
      { start: 'restart', msToReady: restart, goalMs: 15_000 },
    ]);
  } finally {
    await dir.remove();
  }
}
