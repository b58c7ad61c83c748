import { Writable } from 'node:stream';
import { createLogger } from '@sched/kit/logger';
import test from 'ava';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString());
      callback();
    },
  });
  return { stream, lines };
}

test('credentials never reach the log', (t) => {
  const { stream, lines } = capture();
  const logger = createLogger({ level: 'info', name: 'test' }, stream);
  logger.info(
    {
      req: {
        headers: {
          authorization: 'Bearer svc_secret',
          cookie: 'session=abc',
          'x-svc-secret-key': 'client-secret',
        },
      },
      body: {
        password: 'hunter22',
        client_secret: 'cs',
        refresh_token: 'rt',
        code: 'authcode',
        code_verifier: 'v',
      },
      user: { passwordHash: '$scrypt$', apiKey: 'svc_key' },
      client: { secret: 'plain', secretHash: 'abc' },
      config: { databaseUrl: 'postgres://user:pw@db/x', redisUrl: 'redis://:pw@r', cookieKeys: ['k'] },
    },
    'request',
  );
  const output = lines.join('');
  for (const secret of [
    'svc_secret',
    'session=abc',
    'client-secret',
    'hunter22',
    '"cs"',
    '"rt"',
    'authcode',
    '$scrypt$',
    'svc_key',
    'plain',
    'postgres://',
    'redis://',
  ]) {
    t.false(output.includes(secret), `${secret} leaked: ${output}`);
  }
  t.true(output.includes('[redacted]'));
  t.true(output.includes('"service":"test"'));
});

test('error codes stay visible', (t) => {
  const { stream, lines } = capture();
  createLogger({ level: 'info' }, stream).warn({ err: { code: 'ECONNREFUSED' } }, 'down');
  t.true(lines.join('').includes('ECONNREFUSED'));
});

test('calendar credentials never reach the log', (t) => {
  const { stream, lines } = capture();
  const logger = createLogger({ level: 'info', name: 'test' }, stream);
  logger.warn(
    {
      connection: {
        credentials: { serverUrl: 'https://dav.example.com', username: 'alex', password: 'dav-password' },
        credentialsSealed: 'v1.sealed-blob',
      },
      oauth: { accessToken: 'ya29.access', refreshToken: '1//refresh' },
    },
    'calendar',
  );
  const text = lines.join('');
  for (const secret of ['dav-password', 'v1.sealed-blob', 'ya29.access', '1//refresh'])
    t.false(text.includes(secret), secret);
});
