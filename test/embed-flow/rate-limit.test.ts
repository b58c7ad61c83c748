import test from 'ava';
import { FlowBrowser, formOf, pkcePair } from '../support/oauth.ts';
import { setUpTestSystem } from '../support/system.ts';
import { bodyData, createEmbedClient, embedUrl, pageMessage, postForm } from './helpers.ts';
import type { TestClient } from '../support/factories.ts';

// The sign-up limit (20 accounts per hour per IP address) applies to sign-ups in the embed, and its
// 429 is shown in the frame and reported as SIGNUP_FAILED. A file of its own: it uses up the limit.

const PARENT = 'http://127.0.0.1:4557';
const system = setUpTestSystem(test);
let client: TestClient;

test.before(async () => {
  client = await createEmbedClient(system.stores.db.knex, PARENT);
});

test('the 21st sign-up from one address within the hour: 429 with Retry-After, in the frame', async (t) => {
  const statuses: number[] = [];
  for (let i = 0; i < 21; i++) {
    const browser = new FlowBrowser(system.url);
    const entry = embedUrl(system.url, { client, parentOrigin: PARENT, challenge: pkcePair().challenge });
    const page = await browser.open(entry);
    if (page.kind !== 'page') throw new Error('expected the sign-up page');
    const form = formOf(page.html, '/signup')!;
    const response = await postForm(browser, new URL(form.action, system.url), {
      ...form.hidden,
      name: `User ${i}`,
      email: `limit-${i}-${Date.now()}@example.com`,
      username: `limit-${i}-${Date.now().toString(36)}`,
      password: 'correct horse battery',
    });
    statuses.push(response.status);
    if (i < 20) {
      await response.arrayBuffer();
      continue;
    }
    const html = await response.text();
    t.is(response.status, 429);
    t.truthy(response.headers.get('retry-after'));
    t.regex(html, /Too many accounts created from your network/);
    t.is(pageMessage(html)?.code, 'SIGNUP_FAILED');
    t.is(bodyData(html)['parent-origin'], PARENT);
    t.is(response.headers.get('x-frame-options'), null);
  }
  t.deepEqual(statuses.slice(0, 20), Array(20).fill(303));
});
