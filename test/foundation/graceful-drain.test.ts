import { connect, type Socket } from 'node:net';
import { startServiceServer } from '@sched/kit/http/server';
import { createLogger } from '@sched/kit/logger';
import test from 'ava';

// Draining on SIGTERM behind a gateway: new connections are refused at once (the gateway sends
// them elsewhere, even a POST), while an idle pooled connection is left to the gateway to close,
// so a request it sends on one at that very moment still gets an answer.

async function serve(idleGraceMs: number) {
  return startServiceServer({
    name: 'drain',
    port: 0,
    host: '127.0.0.1',
    logger: createLogger({ level: 'silent' }),
    handler: (_req, res) => res.end('ok'),
    checks: [],
    onClose: async () => {},
    shutdownTimeoutMs: 5000,
    idleGraceMs,
  });
}

/** A raw keep-alive connection: each `send` writes one request and resolves with the raw answer. */
async function keepAlive(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let closed = false;
  socket.on('close', () => {
    closed = true;
  });
  return {
    closed: () => closed,
    send: (method: string) =>
      new Promise<string>((resolve, reject) => {
        let text = '';
        const onData = (chunk: Buffer) => {
          text += chunk.toString();
          if (text.includes('\r\n\r\nok')) {
            socket.off('data', onData);
            resolve(text);
          }
        };
        socket.on('data', onData);
        socket.once('close', () => reject(new Error(`closed; got: ${text}`)));
        socket.write(`${method} /x HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n`);
      }),
  };
}

const portOf = (url: string) => Number(new URL(url).port);

test('with a grace, an idle connection still gets its next answer (with Connection: close) after close() began', async (t) => {
  const server = await serve(2000);
  const connection = await keepAlive(portOf(server.url));
  t.regex(await connection.send('POST'), /^HTTP\/1\.1 200/);
  const closing = server.close();
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.false(connection.closed(), 'the idle connection is left open');
  // No new connections while draining.
  const refused = await new Promise<string>((resolve) => {
    const socket = connect(portOf(server.url), '127.0.0.1');
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? ''));
    socket.once('connect', () => resolve('connected'));
  });
  t.is(refused, 'ECONNREFUSED');
  const answer = await connection.send('POST');
  t.regex(answer, /^HTTP\/1\.1 200/);
  t.regex(answer, /\r\nConnection: close\r\n/i);
  await closing;
  // The server ended that connection after the answer, so the drain did not wait for the grace.
  for (let i = 0; i < 20 && !connection.closed(); i++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  t.true(connection.closed());
});

test('without a grace (the default), close() drops idle connections at once', async (t) => {
  const server = await serve(0);
  const connection = await keepAlive(portOf(server.url));
  await connection.send('GET');
  await server.close();
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.true(connection.closed());
});
