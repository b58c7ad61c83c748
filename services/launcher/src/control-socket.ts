import { chmod, rm } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import { join } from 'node:path';
import type { Knex } from '@sched/db/connection';
import type { Logger } from '@sched/kit/logger';
import { type CommandContext, CommandInputError, commands, isCommandName } from './commands.ts';

/**
 * In embedded mode the database belongs to the server process, so the CLI asks the server to run
 * operator commands over a unix socket in the data folder (mode 0600: only the owner may talk to it).
 * A socket of our own rather than PGlite's wire-protocol server: PGlite has a single session, and
 * statements arriving over a second "connection" would run inside the server's open transactions.
 */
export function controlSocketPath(dataDir: string): string {
  return join(dataDir, 'control.sock');
}

export async function startControlSocket(
  dataDir: string,
  knex: Knex,
  logger: Logger,
  /** The server's own settings and token store (the CLI sends only the command's input). */
  context?: CommandContext,
): Promise<() => Promise<void>> {
  const path = controlSocketPath(dataDir);
  await rm(path, { force: true });
  const server = createServer((req, res) => {
    const name = (req.url ?? '').replace(/^\/commands\//, '');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'POST' || !isCommandName(name))
        return reply(404, { error: `unknown command ${name}` });
      try {
        const input = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
        reply(200, { result: await commands[name](knex, input, context) });
        logger.info({ command: name }, 'operator command run through the control socket');
      } catch (error) {
        const known = error instanceof CommandInputError || error instanceof SyntaxError;
        if (!known) logger.error({ err: error, command: name }, 'operator command failed');
        reply(known ? 400 : 500, { error: error instanceof Error ? error.message : String(error) });
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  await chmod(path, 0o600);
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(path, { force: true });
  };
}

/** Sends a command to a running server; undefined when no server listens on the socket. */
export function sendControlCommand(
  dataDir: string,
  name: string,
  input: unknown,
): Promise<{ status: number; body: { result?: unknown; error?: string } } | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath: controlSocketPath(dataDir),
        path: `/commands/${name}`,
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          try {
            resolve({
              status: res.statusCode ?? 500,
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
            });
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') resolve(undefined);
      else reject(error);
    });
    req.end(JSON.stringify(input));
  });
}
