import { Writable } from 'node:stream';
import { enqueueMail, listFailedMail } from '@sched/db/queries/mail-outbox';
import type { Stores } from '@sched/db/stores';
import { createLogger, type Logger } from '@sched/kit/logger';
import { createMailer, type Mailer } from '@sched/kit/mailer';
import type { MailDeps } from '@sched/runtime/mail-delivery';
import { startOutboxWorker } from '@sched/runtime/mail-outbox-worker';
import test from 'ava';
import { commands } from '../../services/launcher/src/commands.ts';
import { setUpTestDatabase } from '../support/database.ts';
import { startSmtpServer, waitForMail } from '../support/mail.ts';
import { startTestSystem } from '../support/system.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

// The mail outbox retry worker against a real local SMTP server that is first down, then up;
// bounded attempts (then failed, logged, listed by the CLI); several workers never send one message
// twice; stop() drains; and the running system starts the worker by itself.

const database = setUpTestDatabase(test);

const fast = { maxAttempts: 5, baseDelaySeconds: 1, maxDelaySeconds: 1 };

/** A logger whose lines the test can read (level and message). */
function capturingLogger() {
  const lines: Array<{ level: number; msg: string; outboxId?: number }> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger({ level: 'debug' }, stream), lines };
}

/** A mailer sending to `smtpUrl` only (no outbox directory to fall back on), logging to `logger`. */
const mailerFor = (smtpUrl: string, logger: Logger): Mailer =>
  createMailer({ smtpUrl, from: 'test@example.com', outboxDir: '/nonexistent', logger });

/** A real SMTP server reached through a proxy that is down for now (`proxy.start()` brings it up). */
async function smtpBehindStoppedProxy() {
  const smtp = await startSmtpServer();
  const proxy = await startTcpProxy('127.0.0.1', Number(new URL(smtp.url).port));
  await proxy.stop();
  return { smtp, proxy, proxyUrl: `smtp://127.0.0.1:${proxy.port}` };
}

function depsWith(mailer: Mailer, logger = capturingLogger().logger): MailDeps {
  return { stores: { db: database.db } as unknown as Stores, mailer, logger };
}

const message = (recipient: string) => ({
  recipient,
  subject: `Hello ${recipient}`,
  text: 'Plain part',
  html: '<p>HTML part</p>',
});

const row = (id: number) => database.db.knex('mail_outbox').where({ id }).first();

/** Polls until the row is marked sent (the SMTP server has the message a moment before that). */
async function sentRow(id: number, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const current = await row(id);
    if (current.sent_at || Date.now() > until) return current;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test.serial(
  'SMTP down: the attempt is recorded with a backoff; SMTP back up: the worker delivers it',
  async (t) => {
    const { smtp, proxy, proxyUrl } = await smtpBehindStoppedProxy();
    const { logger, lines } = capturingLogger();
    const mailer = mailerFor(proxyUrl, logger);
    const id = await enqueueMail(database.db.knex, message('down-then-up@example.com'), 0);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const worker = startOutboxWorker(depsWith(mailer, logger), { intervalMs: 200, policy: fast });
    try {
      t.is(await worker.runOnce(), 0);
      const failed = await row(id);
      t.is(failed.attempts, 1);
      t.truthy(failed.last_error);
      t.is(failed.sent_at, null);
      t.true(new Date(failed.next_attempt_at).getTime() > Date.now(), 'retried later, not at once');
      t.true(lines.some((l) => l.msg === 'mail not sent; kept in the outbox' && l.outboxId === id));

      await proxy.start();
      const mail = await waitForMail(smtp, 'down-then-up@example.com', () => true, 15_000);
      t.true(mail.raw.includes('Hello down-then-up@example.com'));
      t.true(mail.raw.includes('text/plain') && mail.raw.includes('text/html'));
      const sent = await sentRow(id);
      t.truthy(sent.sent_at);
      t.is(sent.attempts, 2);
      t.is(sent.last_error, null);
    } finally {
      await worker.stop();
      mailer.close();
      await proxy.stop();
      await smtp.close();
    }
  },
);

test.serial(
  'after the last attempt the message is marked failed, logged as an error and listed by the CLI',
  async (t) => {
    const { smtp, proxy, proxyUrl } = await smtpBehindStoppedProxy();
    const { logger, lines } = capturingLogger();
    const mailer = mailerFor(proxyUrl, logger);
    const id = await enqueueMail(database.db.knex, message('never@example.com'), 0);
    const worker = startOutboxWorker(depsWith(mailer, logger), {
      intervalMs: 60_000,
      policy: { ...fast, maxAttempts: 2 },
    });
    try {
      for (let attempt = 1; attempt <= 2; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 1100));
        await worker.runOnce();
        t.is((await row(id)).attempts, attempt);
      }
      t.true((await listFailedMail(database.db.knex)).some((m) => m.id === id));
      t.true(
        lines.some(
          (l) =>
            l.level >= 50 && l.msg === 'mail not sent; out of attempts, marked failed' && l.outboxId === id,
        ),
      );
      // Given up: SMTP coming back does not send it any more.
      await proxy.start();
      await new Promise((resolve) => setTimeout(resolve, 1100));
      t.is(await worker.runOnce(), 0);
      t.false(smtp.received.some((m) => m.to.includes('never@example.com')));
      const listed = (await commands['mail-failures'](database.db.knex, {})) as Array<{
        id: number;
        recipient: string;
        attempts: number;
      }>;
      const entry = listed.find((m) => m.id === id);
      t.is(entry?.recipient, 'never@example.com');
      t.is(entry?.attempts, 2);
    } finally {
      await worker.stop();
      mailer.close();
      await proxy.stop();
      await smtp.close();
    }
  },
);

test.serial('two workers at once send every due message exactly once', async (t) => {
  const smtp = await startSmtpServer();
  const { logger } = capturingLogger();
  const mailer = mailerFor(smtp.url, logger);
  const recipients = Array.from({ length: 8 }, (_, i) => `twice-${i}@example.com`);
  for (const recipient of recipients) await enqueueMail(database.db.knex, message(recipient), 0);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const a = startOutboxWorker(depsWith(mailer, logger), { intervalMs: 60_000, batchSize: 3 });
  const b = startOutboxWorker(depsWith(mailer, logger), { intervalMs: 60_000, batchSize: 3 });
  try {
    const [sentA, sentB] = await Promise.all([a.runOnce(), b.runOnce()]);
    t.is(sentA + sentB, recipients.length);
    for (const recipient of recipients)
      t.is(smtp.received.filter((m) => m.to.includes(recipient)).length, 1, recipient);
  } finally {
    await a.stop();
    await b.stop();
    mailer.close();
    await smtp.close();
  }
});

test.serial('stop() drains: it resolves only after the message being sent is recorded', async (t) => {
  let release!: () => void;
  const sending = new Promise<void>((resolve) => {
    release = resolve;
  });
  const mailer: Mailer = { send: () => sending, close: () => {} };
  const id = await enqueueMail(database.db.knex, message('drain@example.com'), 0);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const worker = startOutboxWorker(depsWith(mailer), { intervalMs: 60_000 });
  const pass = worker.runOnce();
  let stopped = false;
  const stopping = worker.stop().then(() => {
    stopped = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.false(stopped);
  release();
  await stopping;
  t.is(await pass, 1);
  t.truthy((await row(id)).sent_at);
});

test.serial(
  'the running system starts the worker: a due message is delivered without any request',
  async (t) => {
    const smtp = await startSmtpServer();
    const system = await startTestSystem({ SMTP_URL: smtp.url });
    try {
      await enqueueMail(system.stores.db.knex, message('system-worker@example.com'), 0);
      const mail = await waitForMail(smtp, 'system-worker@example.com', () => true, 30_000);
      t.true(mail.raw.includes('Hello system-worker@example.com'));
    } finally {
      await system.close();
      await smtp.close();
    }
  },
);
