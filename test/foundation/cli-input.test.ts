import { CommandInputError, commands } from '@sched/launcher/commands';
import test from 'ava';

// The operator CLI's one-line refusals of its input: checked before the command touches the
// database, so no database is needed here.

const noDatabase = undefined as never;

test('an option left out is named as required, not as a schema type error', async (t) => {
  const missing = await t.throwsAsync(commands['create-admin'](noDatabase, { email: 'ops@example.com' }), {
    instanceOf: CommandInputError,
  });
  t.is(missing!.message, '--password is required');
  const noEmail = await t.throwsAsync(commands['disable-user'](noDatabase, {}), {
    instanceOf: CommandInputError,
  });
  t.is(noEmail!.message, '--email is required');
});

test('a value given but wrong keeps its own reason', async (t) => {
  const bad = await t.throwsAsync(
    commands['create-admin'](noDatabase, { email: 'not an address', password: 'long enough pw' }),
    { instanceOf: CommandInputError },
  );
  t.regex(bad!.message, /^--email /);
  t.notRegex(bad!.message, /required/);
  const short = await t.throwsAsync(
    commands['create-admin'](noDatabase, { email: 'ops@example.com', password: 'short' }),
    { instanceOf: CommandInputError },
  );
  t.is(short!.message, '--password must be at least 8 characters');
});
