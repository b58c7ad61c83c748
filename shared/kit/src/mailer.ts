import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type nodemailer from 'nodemailer';
import type { Logger } from './logger.ts';

export interface MailMessage {
  to: string;
  subject: string;
  /** Both parts are required: clients that cannot show HTML still get the message. */
  text: string;
  html: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * A transport made at the first message: nodemailer (about 40 modules) is imported then, not at
 * start (docs/performance.md, Start-up). close() closes it if it was made.
 */
function lazyTransport<T extends { close(): void }>(make: (mailer: typeof nodemailer) => T) {
  let transport: Promise<T> | undefined;
  return {
    get: () => {
      transport ??= import('nodemailer').then((module) => make(module.default));
      return transport;
    },
    close: () => {
      void transport?.then((made) => made.close());
    },
  };
}

/**
 * SMTP when smtpUrl is set; otherwise every message is written as an .eml file to outboxDir
 * and logged, so the embedded default needs no mail server.
 */
export function createMailer(options: {
  smtpUrl: string | undefined;
  from: string;
  outboxDir: string;
  logger: Logger;
}): Mailer {
  const { logger } = options;
  if (options.smtpUrl) {
    const smtpUrl = options.smtpUrl;
    const transport = lazyTransport((mailer) => mailer.createTransport(smtpUrl));
    return {
      async send(message) {
        await (await transport.get()).sendMail({ from: options.from, ...message });
        logger.info({ to: message.to, subject: message.subject }, 'mail sent');
      },
      close: transport.close,
    };
  }
  const transport = lazyTransport((mailer) =>
    mailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
  );
  return {
    async send(message) {
      const info = await (await transport.get()).sendMail({ from: options.from, ...message });
      // Owner only: the messages carry password-reset, verification and invitation links, which
      // any other account on the machine could otherwise read and use.
      await mkdir(options.outboxDir, { recursive: true, mode: 0o700 });
      const file = join(
        options.outboxDir,
        `${Date.now()}-${info.messageId.replace(/[^A-Za-z0-9.-]/g, '')}.eml`,
      );
      await writeFile(file, info.message as Buffer, { mode: 0o600 });
      logger.info({ to: message.to, subject: message.subject, file }, 'mail written to outbox');
    },
    close: transport.close,
  };
}
