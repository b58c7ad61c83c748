import Koa from 'koa';
import { announceReady, closePlain, counted, listenPlain } from '../pinned/server-side.ts';

/**
 * Baseline server (a process of its own): bare Koa answering a given JSON text (BENCH_JSON), the
 * way a Koa handler answers JSON: an object body that Koa serialises on each request (`/`,
 * counter `bare`); and the same bytes as a constant string (`/constant`, counter `constant`, for
 * reference: no serialisation per request). Plain node:http server, same keep-alive timeout as the
 * kit's service server.
 */

export interface BareKoaReady {
  url: string;
  constantUrl: string;
}

const json = process.env.BENCH_JSON;
if (!json) throw new Error('BENCH_JSON: the JSON text to answer');
const payload: unknown = JSON.parse(json);

const bareApp = new Koa();
bareApp.use((ctx) => {
  ctx.body = payload;
});
const constantApp = new Koa();
constantApp.use((ctx) => {
  ctx.type = 'application/json';
  ctx.body = json;
});
const bare = counted('bare', bareApp.callback());
const constant = counted('constant', constantApp.callback());
const { server, url } = await listenPlain((req, res) =>
  req.url === '/constant' ? constant(req, res) : bare(req, res),
);

const answer = await fetch(`${url}/`);
if ((await answer.text()) !== json) throw new Error('the bare handler does not answer the given JSON');

const ready: BareKoaReady = { url: `${url}/`, constantUrl: `${url}/constant` };
announceReady(ready, () => closePlain(server));
