import { createServer, type Server, type Socket, connect } from 'node:net';

/**
 * A TCP proxy in front of a real server, so a test can make that server "go away" (stop) and come
 * back (start) without touching the machine's shared Postgres or Redis.
 */
export async function startTcpProxy(targetHost: string, targetPort: number) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;

  const listen = async () => {
    server = createServer((client) => {
      const upstream = connect(targetPort, targetHost);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  };
  await listen();

  return {
    get port() {
      return port;
    },
    /** Refuses new connections and cuts the open ones. */
    async stop() {
      const closed = new Promise((resolve) => server?.close(resolve));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    /** Listens again on the same port. */
    start: listen,
  };
}
