import type { ClientReviewStatus } from '@sched/db/queries/oauth-clients';
import test from 'ava';
import { insertUser, insertClient } from '../support/factories.ts';
import { setUpWorld } from '../support/world.ts';
import { ADMIN, CLIENTS, page, post, signedIn, text } from './helpers.ts';

// Paging of the client list (newest first, "Newer" / "Older") and of the review queue (oldest
// first, "Previous" / "Next"): 25 a page, ?skip=&take= validated (a 400 page, never a 500).
// Only the queue test makes PENDING clients: the queue is everyone's, the lists are per user.

const world = setUpWorld(test);

/** `count` clients of `ownerUserId` named `${prefix} 01`.. (01 the newest), a minute apart. */
async function clientsOf(ownerUserId: number, prefix: string, count: number, status: ClientReviewStatus) {
  const knex = world.system.stores.db.knex;
  const now = Date.now();
  const ids: string[] = [];
  for (let i = 1; i <= count; i++) {
    const name = `${prefix} ${String(i).padStart(2, '0')}`;
    const { client } = await insertClient(knex, { ownerUserId, name, status });
    await knex('oauth_clients')
      .where({ id: client.id })
      .update({ created_at: new Date(now - i * 60_000) });
    ids.push(client.id);
  }
  return ids;
}

/** Client names in the order the page shows them. */
const listedNames = (html: string) =>
  [...html.matchAll(/<span class="client-main"><strong>([^<]*)<\/strong>/g)].map((m) => m[1]);
const reviewNames = (html: string) =>
  [...html.matchAll(/<h2>([^<]*)<\/h2><p class="muted mono">/g)].map((m) => m[1]);
const link = (html: string, rel: 'prev' | 'next') =>
  new RegExp(`rel="${rel}" href="([^"]*)">([^<]*)<`)
    .exec(html)
    ?.slice(1, 3)
    .map((s) => s.replace(/&amp;/g, '&'));
const names = (prefix: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${prefix} ${String(from + i).padStart(2, '0')}`);

test('the client list: 25 newest first, then "Older" and "Newer" links; take and skip in range; past the end', async (t) => {
  const user = await insertUser(world.knex());
  await clientsOf(user.user.id, 'Paged', 30, 'APPROVED');
  const browser = await signedIn(world, user);

  const first = page(await browser.open(CLIENTS));
  t.is(first.status, 200);
  t.deepEqual(listedNames(first.html), names('Paged', 1, 25));
  t.deepEqual(link(first.html, 'next'), [`${CLIENTS}?skip=25`, 'Older']);
  t.is(link(first.html, 'prev'), undefined);
  t.true(text(first.html).includes('Showing 1–25'));

  const second = page(await browser.open(link(first.html, 'next')![0]!));
  t.deepEqual(listedNames(second.html), names('Paged', 26, 30));
  t.deepEqual(link(second.html, 'prev'), [CLIENTS, 'Newer']);
  t.is(link(second.html, 'next'), undefined);

  const middle = page(await browser.open(`${CLIENTS}?skip=10&take=5`));
  t.deepEqual(listedNames(middle.html), names('Paged', 11, 15));
  t.deepEqual(link(middle.html, 'prev'), [`${CLIENTS}?skip=5&take=5`, 'Newer']);
  t.deepEqual(link(middle.html, 'next'), [`${CLIENTS}?skip=15&take=5`, 'Older']);

  const past = page(await browser.open(`${CLIENTS}?skip=500`));
  t.is(past.status, 200);
  t.deepEqual(listedNames(past.html), []);
  t.true(text(past.html).includes('No clients on this page.'));
  t.deepEqual(link(past.html, 'prev'), [`${CLIENTS}?skip=475`, 'Newer']);

  // Twenty-five or fewer: no pager at all.
  const few = await insertUser(world.knex());
  await clientsOf(few.user.id, 'Few', 25, 'APPROVED');
  const one = page(await (await signedIn(world, few)).open(CLIENTS));
  t.is(listedNames(one.html).length, 25);
  t.false(one.html.includes('class="pager"'));
});

test('bad skip or take on the list and the review queue is a 400 page, never a 500', async (t) => {
  const user = await signedIn(world, await insertUser(world.knex()));
  const admin = await signedIn(world, await insertUser(world.knex(), { serviceAdmin: true }));
  const bad = [
    'skip=-1',
    'skip=abc',
    'skip=1.5',
    'skip=',
    'skip=1e3',
    'skip=99999999999',
    'skip=1000000001',
    'skip=1&skip=2',
    'skip=%00',
    'take=0',
    'take=101',
    'take=-5',
    'take=ten',
    'take=1&take=1',
  ];
  for (const [browser, path] of [
    [user, CLIENTS],
    [admin, ADMIN],
  ] as const) {
    for (const query of bad) {
      const response = await browser.request(`${path}?${query}`);
      const body = await response.text();
      t.is(response.status, 400, `${path}?${query}`);
      t.regex(response.headers.get('content-type') ?? '', /text\/html/);
      t.true(text(body).includes('Invalid'), `${path}?${query}`);
    }
    t.is((await browser.request(`${path}?skip=0&take=100`)).status, 200);
  }
  // The page is also checked on the queue's actions, before anything is decided.
  const queue = page(await admin.open(ADMIN));
  const token = /name="_csrf" value="([^"]+)"/.exec(queue.html)![1]!;
  const response = await admin.request(`${ADMIN}/some-client/approve?skip=x`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: token }),
  });
  t.is(response.status, 400);
  await response.text();
});

test('the review queue: 25 oldest first, "Next" and "Previous"; a decision comes back to the same page', async (t) => {
  const owner = await insertUser(world.knex());
  // Created newest first, so "Queued 30" is the oldest: the queue starts there.
  const ids = await clientsOf(owner.user.id, 'Queued', 30, 'PENDING');
  const admin = await signedIn(world, await insertUser(world.knex(), { serviceAdmin: true }));

  const first = page(await admin.open(ADMIN));
  t.deepEqual(reviewNames(first.html), names('Queued', 6, 30).reverse());
  t.deepEqual(link(first.html, 'next'), [`${ADMIN}?skip=25`, 'Next']);
  t.is(link(first.html, 'prev'), undefined);

  const second = page(await admin.open(`${ADMIN}?skip=25`));
  t.deepEqual(reviewNames(second.html), names('Queued', 1, 5).reverse());
  t.deepEqual(link(second.html, 'prev'), [ADMIN, 'Previous']);

  // "Queued 03" is on the second page; approving it keeps the administrator there.
  const approveOn = `${ADMIN}/${ids[2]}/approve?skip=25`;
  const approved = await post(admin, second, approveOn);
  t.is(approved.status, 200);
  t.is(approved.url.search, '?notice=approved&skip=25');
  t.true(text(approved.html).includes('Client approved.'));
  t.deepEqual(reviewNames(approved.html), ['Queued 05', 'Queued 04', 'Queued 02', 'Queued 01']);

  // A refused rejection (no reason) re-renders the same page with the error.
  const refused = await post(admin, approved, `${ADMIN}/${ids[0]}/reject?skip=25`, { reason: ' ' });
  t.is(refused.status, 400);
  t.deepEqual(reviewNames(refused.html), ['Queued 05', 'Queued 04', 'Queued 02', 'Queued 01']);
  t.true(text(refused.html).includes('a rejection reason is required'));
});
