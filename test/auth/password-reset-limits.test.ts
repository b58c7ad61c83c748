import test from 'ava';
import { insertUser, uniqueTag } from '../support/factories.ts';
import { setUpWorld } from '../support/world.ts';
import { askForReset, mailCount, nextMail, RESET_SUBJECT } from './accounts.ts';

// "Forgot password?" limits: 20 requests per IP address an hour (429); at most 5
// reset e-mails per address an hour (past that the page answers the same and nothing is sent).
// A file of its own: the counters are the system's, and the other reset tests share the IP.

const world = setUpWorld(test);

test.serial('at most 5 reset e-mails per address an hour; the answer stays the same', async (t) => {
  const user = await insertUser(world.knex());
  const answers = new Set<number>();
  for (let i = 0; i < 7; i++) answers.add((await askForReset(world, user.email)).status);
  t.deepEqual([...answers], [200]);
  await nextMail(world, user.email, RESET_SUBJECT, 4);
  // The sixth and seventh would have been written right after their answers.
  const queued = await world.knex()('mail_outbox').whereRaw('lower(recipient) = lower(?)', [user.email]);
  t.is(queued.length, 5);
  t.is(mailCount(world, user.email, RESET_SUBJECT), 5);
});

test.serial('more than 20 requests from one network an hour: 429', async (t) => {
  const statuses: number[] = [];
  // 7 counted by the test before; 13 more reach the limit.
  for (let i = 0; i < 14; i++)
    statuses.push((await askForReset(world, `n-${uniqueTag()}@example.com`)).status);
  t.deepEqual(statuses.slice(0, 13), Array(13).fill(200));
  t.is(statuses[13], 429);
});
