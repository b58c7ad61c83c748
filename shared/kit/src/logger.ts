import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.ts';

export type { Logger };

/** Paths never written to logs: credentials in headers, bodies and our own objects. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-svc-secret-key"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.passwordHash',
  '*.secret',
  '*.secretHash',
  '*.client_secret',
  '*.apiKey',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  // Calendar connections: no credential in any log line.
  '*.credentials',
  '*.credentialsSealed',
  '*.accessToken',
  '*.refreshToken',
  // Authorization codes only where requests carry them; `err.code` (ECONNREFUSED...) stays visible.
  'body.code',
  'query.code',
  '*.code_verifier',
  '*.cookieKeys',
  '*.databaseUrl',
  '*.redisUrl',
  '*.smtpUrl',
];

export function createLogger(
  options: { level: LogLevel; name?: string },
  destination?: pino.DestinationStream,
): Logger {
  return pino(
    {
      level: options.level,
      base: options.name ? { service: options.name } : {},
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
