import type { TestFn } from 'ava';
import { type SMTPServerSession, SMTPServer } from 'smtp-server';
import { setUpForFile } from './read-through.ts';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The raw RFC 5322 message (headers + MIME body). */
  raw: string;
}

/**
 * A real SMTP server on loopback for tests: the system under test sends through SMTP_URL and the
 * test reads what arrived. No auth, no TLS (loopback only).
 */
export async function startSmtpServer() {
  const received: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        for (const wake of waiters.splice(0)) wake();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    /** Resolves with the first message to `to` matching `predicate`, waiting up to `timeoutMs`. */
    async waitFor(to: string, predicate: (mail: ReceivedMail) => boolean = () => true, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const address = to.toLowerCase();
        const found = received.find(
          (mail) => mail.to.some((r) => r.toLowerCase() === address) && predicate(mail),
        );
        if (found) return found;
        if (Date.now() > until) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type TestSmtpServer = Awaited<ReturnType<typeof startSmtpServer>>;

/**
 * One SMTP server for the whole file, started in a serial `test.before` (so a system set up after
 * this call can take its URL) and closed in `test.after.always`. The result reads through to it.
 */
export function setUpSmtpServer<Context>(test: TestFn<Context>): TestSmtpServer {
  return setUpForFile(test, 'the SMTP server', startSmtpServer, (smtp) => smtp.close(), {
    url: true,
    received: true,
    waitFor: true,
    close: true,
  });
}
