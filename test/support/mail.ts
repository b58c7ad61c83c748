// Mail in tests: a real SMTP server on loopback that the system under test sends to (SMTP_URL),
// and one way to wait for a message: `waitForMail(smtp, to, match)`, decoded (subject, text, html).
import type { TestFn } from 'ava';
import { type SMTPServerSession, SMTPServer } from 'smtp-server';
import { setUpForFile } from './read-through.ts';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The raw RFC 5322 message (headers + MIME body). */
  raw: string;
}

export interface TestSmtpServer {
  /** `smtp://127.0.0.1:port`, for SMTP_URL. */
  url: string;
  /** Every message received, in order. */
  received: ReceivedMail[];
  /** Resolves when the next message arrives or after `ms`, whichever is first. */
  arrival(ms: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real SMTP server on loopback for tests: the system under test sends through SMTP_URL and the
 * test reads what arrived. No auth, no TLS (loopback only).
 */
export async function startSmtpServer(): Promise<TestSmtpServer> {
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
    arrival: (ms) =>
      new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, ms);
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * One SMTP server for the whole file, started in a serial `test.before` (so a system set up after
 * this call can take its URL) and closed in `test.after.always`. The result reads through to it.
 */
export function setUpSmtpServer<Context>(test: TestFn<Context>): TestSmtpServer {
  return setUpForFile(test, 'the SMTP server', startSmtpServer, (smtp) => smtp.close(), {
    url: true,
    received: true,
    arrival: true,
    close: true,
  });
}

/** A received message, decoded. */
export interface Mail extends ReceivedMail, ParsedMail {}

export interface ParsedMail {
  /** The Subject header with RFC 2047 words decoded. */
  subject: string;
  /** The text/plain part (or the body of a single-part text message), decoded; '' when none. */
  text: string;
  /** The text/html part, decoded; '' when none. */
  html: string;
  /** The whole raw message with quoted-printable undone (to search anything in it). */
  body: string;
}

/**
 * The first message (oldest first) to `to` (any case) that `match` accepts, waiting up to
 * `timeoutMs`. `match` is a predicate on the decoded message, or the exact decoded subject.
 * `source` is the SMTP server or anything holding it (a world).
 */
export async function waitForMail(
  source: TestSmtpServer | { smtp: TestSmtpServer },
  to: string,
  match: string | ((mail: Mail) => boolean) = () => true,
  timeoutMs = 10_000,
): Promise<Mail> {
  const smtp = 'smtp' in source ? source.smtp : source;
  const address = to.toLowerCase();
  const accepts = typeof match === 'string' ? (mail: Mail) => mail.subject === match : match;
  const until = Date.now() + timeoutMs;
  let seen = 0;
  for (;;) {
    const received = smtp.received;
    for (; seen < received.length; seen++) {
      const message = received[seen]!;
      if (!message.to.some((r) => r.toLowerCase() === address)) continue;
      const mail: Mail = { ...message, ...parseMail(message.raw) };
      if (accepts(mail)) return mail;
    }
    if (Date.now() > until) {
      const what = typeof match === 'string' ? ` "${match}"` : '';
      throw new Error(`no mail${what} to ${to} within ${timeoutMs} ms`);
    }
    await smtp.arrival(Math.min(200, Math.max(1, until - Date.now())));
  }
}

/** Subject, text and html parts of a raw message, decoded, and the whole with quoted-printable undone. */
export function parseMail(raw: string): ParsedMail {
  const { headers, body } = splitHeaders(raw);
  const parts = leafParts(headers, body);
  const text = parts.find((part) => part.type === 'text/plain')?.content ?? '';
  const html = parts.find((part) => part.type === 'text/html')?.content ?? '';
  return { subject: decodeWords(header(headers, 'subject')), text, html, body: decodeQuotedPrintable(raw) };
}

/** Splits a raw MIME message into its parts' content types (lower case). */
export function mimeTypes(raw: string): string[] {
  return [...raw.matchAll(/^content-type:\s*([a-z]+\/[a-z0-9.+-]+)/gim)].map((m) => m[1]!.toLowerCase());
}

/** Undoes quoted-printable soft line breaks and =XX escapes (enough to search the text). */
export function decodeQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

function splitHeaders(raw: string): { headers: string; body: string } {
  const end = /\r?\n\r?\n/.exec(raw);
  if (!end) return { headers: raw, body: '' };
  return { headers: raw.slice(0, end.index), body: raw.slice(end.index + end[0].length) };
}

/** One header's value, folded lines joined ('' when absent). */
function header(headers: string, name: string): string {
  const match = new RegExp(`^${name}:[ \\t]*(.*(?:\\r?\\n[ \\t].*)*)`, 'im').exec(headers);
  return match ? match[1]!.replace(/\r?\n[ \t]+/g, ' ') : '';
}

/** RFC 2047 encoded words (Q and B, any charset read as UTF-8), adjacent words joined. */
function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[QB]\?[^?]*\?=)\s+(?==\?)/gi, '$1')
    .replace(/=\?[^?]+\?([QB])\?([^?]*)\?=/gi, (_, kind: string, text: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) =>
                String.fromCharCode(Number.parseInt(hex, 16)),
              ),
            'latin1',
          ).toString('utf8'),
    );
}

/** The decoded leaf parts (type and content) of a MIME entity, depth first. */
function leafParts(headers: string, body: string): Array<{ type: string; content: string }> {
  const contentType = header(headers, 'content-type') || 'text/plain';
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type.startsWith('multipart/')) {
    const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
    if (!boundary) return [];
    const marker = `--${boundary}`;
    return body
      .split(marker)
      .slice(1)
      .filter((chunk) => !chunk.startsWith('--'))
      .flatMap((chunk) => {
        const part = splitHeaders(chunk.replace(/^\r?\n/, ''));
        return leafParts(part.headers, part.body.replace(/\r?\n$/, ''));
      });
  }
  const encoding = header(headers, 'content-transfer-encoding').trim().toLowerCase();
  const bytes =
    encoding === 'base64'
      ? Buffer.from(body.replace(/\s+/g, ''), 'base64')
      : encoding === 'quoted-printable'
        ? Buffer.from(
            body
              .replace(/=\r?\n/g, '')
              .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
            'latin1',
          )
        : Buffer.from(body, 'utf8');
  return [{ type, content: bytes.toString('utf8') }];
}
