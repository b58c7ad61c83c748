import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Stores } from '@sched/db/stores';
import { loadConfig } from '@sched/kit/config';
import { createLogger } from '@sched/kit/logger';
import { createMailer } from '@sched/kit/mailer';
import { openRuntime } from '@sched/runtime/runtime';
import test from 'ava';
import { tempDir } from '../support/process.ts';
import { startTestSystem } from '../support/system.ts';
import { inviteToNewOrganization } from './invite.ts';

// SMTP_URL unset: mail is written to ./.data/mail/ as .eml files and logged (README "Mail"). The
// folder is DATA_DIR/mail (DATA_DIR defaults to ./.data); each test uses a temporary DATA_DIR.

const emlFiles = async (dir: string): Promise<string[]> =>
  (await readdir(dir).catch(() => [] as string[])).filter((name) => name.endsWith('.eml'));

/** The .eml files of `dir`, read, once at least `count` are there (or after the deadline). */
async function waitForEml(dir: string, count = 1, deadlineMs = 10_000): Promise<string[]> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const names = await emlFiles(dir);
    if (names.length >= count || Date.now() > until)
      return Promise.all(names.map((name) => readFile(join(dir, name), 'utf8')));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Asserts a raw message is multipart with both a text/plain and a text/html part. */
function hasTextAndHtml(raw: string): boolean {
  return (
    /^Content-Type: multipart\/alternative;/im.test(raw) &&
    /^Content-Type: text\/plain/im.test(raw) &&
    /^Content-Type: text\/html/im.test(raw)
  );
}

test('the running system without SMTP_URL writes an invitation mail as an .eml file under DATA_DIR/mail', async (t) => {
  const dataDir = await tempDir();
  const system = await startTestSystem({
    DATA_DIR: dataDir.path,
    MAIL_FROM: 'Scheduler <noreply@example.test>',
  });
  try {
    t.is(system.config.smtpUrl, undefined);
    const { status, email } = await inviteToNewOrganization(system.stores.db.knex, system.url);
    t.is(status, 201);

    const [raw, ...more] = await waitForEml(join(dataDir.path, 'mail'));
    t.truthy(raw, 'an .eml file in DATA_DIR/mail');
    t.is(more.length, 0);
    t.regex(raw!, new RegExp(`^To: ${email.replace(/[.]/g, '\\.')}$`, 'm'));
    t.regex(raw!, /^From: Scheduler <noreply@example\.test>$/m);
    t.regex(raw!, /^Subject: .*invited/m);
    t.true(hasTextAndHtml(raw!), raw);

    const [row] = await system.stores.db
      .knex('mail_outbox')
      .where({ recipient: email })
      .select('sent_at', 'attempts');
    t.truthy(row?.sent_at, 'the outbox row counts as sent');
  } finally {
    await system.close();
    await dataDir.remove();
  }
});

test('the runtime mailer without SMTP_URL writes the message with both parts and logs the file', async (t) => {
  const dataDir = await tempDir();
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const config = loadConfig({ DATA_DIR: dataDir.path, MAIL_FROM: 'noreply@example.test' });
  const runtime = await openRuntime(
    { ...config, cookieKeys: ['x'.repeat(32)] },
    createLogger({ level: 'info' }, stream),
    // The mailer needs no store; only close() is called (the calendar service holds an unused handle).
    { close: async () => {}, db: {} } as unknown as Stores,
  );
  try {
    await runtime.mailer.send({
      to: 'reader@example.test',
      subject: 'Plain and rich',
      text: 'The plain text part',
      html: '<p>The <strong>HTML</strong> part</p>',
    });
    const mailDir = join(dataDir.path, 'mail');
    const names = await emlFiles(mailDir);
    t.is(names.length, 1);
    const raw = await readFile(join(mailDir, names[0]!), 'utf8');
    t.regex(raw, /^To: reader@example\.test$/m);
    t.regex(raw, /^Subject: Plain and rich$/m);
    t.true(hasTextAndHtml(raw), raw);
    t.true(raw.includes('The plain text part'));
    t.true(raw.includes('<strong>HTML</strong>'));

    const logged = lines.find((line) => line.file === join(mailDir, names[0]!));
    t.truthy(logged, JSON.stringify(lines));
    t.is(logged!.to, 'reader@example.test');
    t.is(logged!.subject, 'Plain and rich');
  } finally {
    await runtime.close();
    await dataDir.remove();
  }
});

test('mail files are for the owner only: they carry reset and invitation links', async (t) => {
  const dir = await tempDir();
  t.teardown(() => dir.remove());
  const logger = createLogger({ level: 'silent' });
  // A folder the mailer makes (the CLI or a standalone service may be first to write under DATA_DIR)...
  const made = join(dir.path, 'data', 'mail');
  // ...and one that was there already, readable by everyone.
  const existing = join(dir.path, 'open');
  await mkdir(existing, { mode: 0o755 });
  for (const outboxDir of [made, existing]) {
    const mailer = createMailer({ smtpUrl: undefined, from: 'noreply@example.test', outboxDir, logger });
    await mailer.send({
      to: 'reader@example.test',
      subject: 'Reset',
      text: 'https://app.test/reset?token=x',
      html: '<p>reset</p>',
    });
    mailer.close();
    const [name] = await emlFiles(outboxDir);
    t.is((await stat(join(outboxDir, name!))).mode & 0o777, 0o600, outboxDir);
  }
  t.is((await stat(made)).mode & 0o777, 0o700);
  t.is((await stat(join(dir.path, 'data'))).mode & 0o777, 0o700);
});
