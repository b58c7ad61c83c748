import type { Context, Middleware, Next } from 'koa';

/**
 * The API's routes as a table compiled once at start: routes are grouped by their first path
 * segment and their number of segments, each path split into literal and parameter segments, and
 * a request compares its own segments with the few routes of its group, in declaration order
 * (the first declared route of a path wins). No regular expression, no per-request composition.
 *
 * Why not @koa/router: it tested the regular expression of every route of a router on every
 * request (it collects every match), called `debug()` per route tested and built a `compose()`
 * chain per request: about 10% of an authorized GET's CPU and 16% of its allocation (issue 22).
 *
 * Same answers as @koa/router gave (test/api/routing.test.ts): paths match without case and with
 * one trailing slash; parameters are percent-decoded (left as sent when that fails); a GET route
 * answers HEAD; a path known under other methods answers OPTIONS with `Allow` (200), another
 * implemented method with 405 and `Allow`, a method not implemented at all with 501; other paths
 * go on to the next middleware (404). Route paths are literal and `:name` segments only, the
 * first one literal (checked at start).
 *
 * A route may name headers for every answer on its path (the deprecation headers): set before its
 * handler runs, so its errors carry them, and on the table's own OPTIONS, 405 and 501 for that path;
 * `setPathHeaders` sets them on an answer given before the table (a body refused by the parser).
 */

export type RouteHandler = (ctx: Context) => unknown;

/** What @koa/router implemented: other methods on a known path are 501. */
const IMPLEMENTED = new Set(['HEAD', 'OPTIONS', 'GET', 'PUT', 'PATCH', 'POST', 'DELETE']);
const LITERAL = /^[A-Za-z0-9._~-]+$/;
const PARAMETER = /^:[A-Za-z_][A-Za-z0-9_]*$/;

interface CompiledRoute {
  /** The methods it answers (GET routes answer HEAD too). */
  methods: readonly string[];
  /** The declared path with the table's prefix: the metrics' route label. */
  pattern: string;
  /** Per segment after the first: the literal in lower case, or null for a parameter. */
  literals: readonly (string | null)[];
  /** Per segment after the first: the parameter's name, or null for a literal. */
  names: readonly (string | null)[];
  handler: RouteHandler;
  /** Headers of every answer on this route's path, or undefined. */
  headers: Readonly<Record<string, string>> | undefined;
}

export interface RouteOptions {
  /** Headers every answer on the path carries: the route's own (errors included) and the table's. */
  headers?: Readonly<Record<string, string>>;
}

interface Match {
  route: CompiledRoute;
  params: Readonly<Record<string, string>>;
}

/** Paths remembered per method (a few hundred KB at most). */
const MAX_REMEMBERED_PATHS = 2048;

interface RoutedContext extends Context {
  params: Readonly<Record<string, string>>;
  _matchedRoute?: string;
}

export class RouteTable {
  readonly #prefix: string;
  readonly #lowerPrefix: string;
  /** First segment (lower case) -> number of segments -> routes in declaration order. */
  readonly #groups = new Map<string, CompiledRoute[][]>();
  /**
   * Method -> request path -> the route it matched and its parameters (frozen: requests share
   * them). The same few paths come back on every request (a client polling its memberships), and
   * splitting and matching each cost more than a lookup; the table does not change once requests
   * come (adding a route empties it), so a path always matches the same way.
   */
  readonly #matched = new Map<string, Map<string, Match>>();

  /** `prefix`: e.g. `/v2`, put before every path. */
  constructor(prefix: string) {
    this.#prefix = `${prefix}/`;
    this.#lowerPrefix = this.#prefix.toLowerCase();
  }

  get(path: string, handler: RouteHandler): void {
    this.add('GET', path, handler);
  }

  /** Adds a route; `path` is under the prefix (`/organizations/:orgId`). */
  add(method: string, path: string, handler: RouteHandler, options: RouteOptions = {}): void {
    const segments = path.split('/').slice(1);
    const [first, ...rest] = segments;
    if (first === undefined || !LITERAL.test(first))
      throw new Error(`${path}: a route path must start with a literal segment`);
    for (const segment of rest) {
      if (!LITERAL.test(segment) && !PARAMETER.test(segment))
        throw new Error(`${path}: segments are literals or :name parameters only`);
    }
    this.#matched.clear();
    const upper = method.toUpperCase();
    const route: CompiledRoute = {
      methods: upper === 'GET' ? ['HEAD', 'GET'] : [upper],
      pattern: `${this.#prefix.slice(0, -1)}${path}`,
      literals: rest.map((segment) => (segment.startsWith(':') ? null : segment.toLowerCase())),
      names: rest.map((segment) => (segment.startsWith(':') ? segment.slice(1) : null)),
      handler,
      headers: options.headers,
    };
    const key = first.toLowerCase();
    const group = this.#groups.get(key) ?? [];
    this.#groups.set(key, group);
    group[segments.length] ??= [];
    group[segments.length]!.push(route);
  }

  /** The table as Koa middleware: the matched route's handler, or 405/OPTIONS/501, or next. */
  middleware(): Middleware {
    return (ctx: Context, next: Next) => {
      const path = ctx.path;
      const method = ctx.method;
      const known = this.#matched.get(method)?.get(path);
      if (known !== undefined) return this.#dispatch(ctx, known.route, known.params);
      const segments = this.#segments(path);
      const candidates = segments && this.#candidates(segments);
      if (!candidates) return next();
      for (const route of candidates) {
        if (!route.methods.includes(method) || !matches(route, segments)) continue;
        const values = Object.freeze(params(route, segments));
        this.#remember(method, path, { route, params: values });
        return this.#dispatch(ctx, route, values);
      }
      const allowed = new Set<string>();
      let headers: Record<string, string> | undefined;
      for (const route of candidates) {
        if (!matches(route, segments)) continue;
        for (const m of route.methods) allowed.add(m);
        if (route.headers) headers = { ...headers, ...route.headers };
      }
      if (allowed.size === 0) return next();
      return Promise.resolve(next()).then(() => answerOtherMethod(ctx, [...allowed], headers));
    };
  }

  #dispatch(ctx: Context, route: CompiledRoute, values: Readonly<Record<string, string>>): unknown {
    const routed = ctx as RoutedContext;
    routed.params = values;
    routed._matchedRoute = route.pattern;
    if (route.headers) setHeaders(ctx, route.headers);
    return route.handler(ctx);
  }

  /** Bounded: emptied when full, so a scan of many paths cannot grow it. */
  #remember(method: string, path: string, match: Match): void {
    let byPath = this.#matched.get(method);
    if (byPath === undefined) {
      byPath = new Map();
      this.#matched.set(method, byPath);
    }
    if (byPath.size >= MAX_REMEMBERED_PATHS) byPath.clear();
    byPath.set(path, match);
  }

  /** Sets the headers of the routes of `ctx.path` (any method), if they name some. */
  setPathHeaders(ctx: Context): void {
    const segments = this.#segments(ctx.path);
    const candidates = segments && this.#candidates(segments);
    if (!candidates) return;
    for (const route of candidates) {
      if (route.headers && matches(route, segments)) setHeaders(ctx, route.headers);
    }
  }

  /** The request path's segments under the prefix (one trailing slash dropped), or null. */
  #segments(path: string): string[] | null {
    const start = this.#prefix.length;
    if (path.length <= start) return null;
    if (!path.startsWith(this.#prefix) && path.slice(0, start).toLowerCase() !== this.#lowerPrefix)
      return null;
    const end = path.endsWith('/') ? path.length - 1 : path.length;
    if (end <= start) return null;
    return path.slice(start, end).split('/');
  }

  #candidates(segments: string[]): CompiledRoute[] | undefined {
    const first = segments[0]!;
    const group = this.#groups.get(first) ?? this.#groups.get(first.toLowerCase());
    return group?.[segments.length];
  }
}

/** Literal segments equal without case; parameters are not empty. The first segment is the group's. */
function matches(route: CompiledRoute, segments: string[]): boolean {
  const literals = route.literals;
  for (let i = 0; i < literals.length; i++) {
    const segment = segments[i + 1]!;
    const literal = literals[i];
    if (literal === null || literal === undefined) {
      if (segment === '') return false;
    } else if (
      segment !== literal &&
      (segment.length !== literal.length || segment.toLowerCase() !== literal)
    ) {
      return false;
    }
  }
  return true;
}

function params(route: CompiledRoute, segments: string[]): Record<string, string> {
  const values: Record<string, string> = {};
  const names = route.names;
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    if (name === null || name === undefined) continue;
    const raw = segments[i + 1]!;
    values[name] = raw.includes('%') ? decodeOrKeep(raw) : raw;
  }
  return values;
}

function decodeOrKeep(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function setHeaders(ctx: Context, headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
}

/**
 * A known path asked with another method, once nothing downstream answered it; with the headers
 * of the path's routes (a deprecated path's answer says so whatever the method).
 */
function answerOtherMethod(
  ctx: Context,
  allowed: string[],
  headers: Readonly<Record<string, string>> | undefined,
): void {
  if (ctx.status && ctx.status !== 404) return;
  if (headers) setHeaders(ctx, headers);
  const method = ctx.method;
  if (!IMPLEMENTED.has(method)) {
    ctx.status = 501;
  } else if (method === 'OPTIONS') {
    ctx.status = 200;
    ctx.body = '';
  } else {
    ctx.status = 405;
  }
  ctx.set('Allow', allowed.join(', '));
}
