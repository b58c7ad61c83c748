import { BadRequestError, PayloadTooLargeError } from '@sched/kit/errors';
import { unfitTextReason } from '@sched/kit/http/unfit-text';
import type { Context } from 'koa';

/** Request bodies of the token, revocation and form endpoints are small; anything bigger is refused. */
export const BODY_LIMIT_BYTES = 16 * 1024;

export type Params = Record<string, string>;

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

const tooLarge = (limit: number) => new PayloadTooLargeError(`Request body is larger than ${limit} bytes`);

/** The raw body, at most `limit` bytes. Over the limit: 413, and the connection closes after the answer. */
export function readRaw(ctx: Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    ctx.set('Connection', 'close');
    return Promise.reject(tooLarge(limit));
  }
  const req = ctx.req;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        ctx.set('Connection', 'close');
        req.resume(); // let the rest drain while the 413 is written
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function decodeUtf8(raw: Buffer): string {
  try {
    return utf8.decode(raw);
  } catch {
    throw new BadRequestError('Request body is not valid UTF-8');
  }
}

function checkValue(name: string, value: string): string {
  const reason = unfitTextReason(value);
  if (reason !== null) throw new BadRequestError(`Parameter ${name} ${reason}`);
  return value;
}

/** A parameter sent more than once (RFC 6749 section 3.2 forbids it); `parameter` names it. */
export class RepeatedParameterError extends BadRequestError {
  readonly parameter: string;
  constructor(parameter: string) {
    super(`Parameter ${parameter} must not be provided twice`);
    this.parameter = parameter;
  }
}

function decodeComponent(part: string): string {
  if (!part.includes('%') && !part.includes('+')) return part;
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    throw new BadRequestError('Request body is not valid form encoding (bad percent-escape or UTF-8)');
  }
}

/** application/x-www-form-urlencoded, strictly: invalid escapes or UTF-8 and repeated names are refused. */
export function parseForm(text: string): Params {
  const params: Params = Object.create(null);
  if (text === '') return params;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeComponent(eq === -1 ? pair : pair.slice(0, eq));
    const value = decodeComponent(eq === -1 ? '' : pair.slice(eq + 1));
    if (Object.hasOwn(params, name)) throw new RepeatedParameterError(name);
    params[name] = checkValue(name, value);
  }
  return params;
}

/** A JSON object whose members are all strings (OAuth parameters are strings; anything else is a 400). */
export function parseJsonParams(text: string): Params {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BadRequestError('Malformed JSON body');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new BadRequestError('JSON body must be an object');
  }
  const params: Params = Object.create(null);
  for (const [name, value] of Object.entries(parsed)) {
    if (value === null || value === undefined) continue;
    if (typeof value !== 'string') throw new BadRequestError(`Parameter ${name} must be a string`);
    params[name] = checkValue(name, value);
  }
  refuseRepeatedMembers(text);
  return params;
}

/** A JSON string token, with `:` after it when it is a member name. */
const JSON_STRING = /"(?:[^"\\]|\\.)*"(\s*:)?/g;

/**
 * JSON.parse keeps the last of repeated member names silently; a repeated parameter is refused in
 * JSON as in a form. Run on an object whose values are all strings or null: outside strings there
 * are no quotes, so consecutive string tokens are the document's strings, names being those
 * followed by a colon.
 */
function refuseRepeatedMembers(text: string): void {
  const seen = new Set<string>();
  for (const match of text.matchAll(JSON_STRING)) {
    if (match[1] === undefined) continue;
    const name = JSON.parse(match[0].slice(0, match[0].lastIndexOf('"') + 1)) as string;
    if (seen.has(name)) throw new RepeatedParameterError(name);
    seen.add(name);
  }
}

/** A request body read as OAuth parameters, with its bytes when they came form-encoded in UTF-8. */
export interface ReadBody {
  params: Params;
  /** The body as received, when it is the form encoding (UTF-8) of `params`: it can be passed on as is. */
  form: Buffer | undefined;
}

/**
 * Reads the body as OAuth parameters: form encoding always, JSON when `json` is allowed. Missing
 * Content-Type with an empty body gives no parameters. 413 over BODY_LIMIT_BYTES, 400 for anything
 * malformed (bad UTF-8, repeated parameter, non-string JSON member, other content types).
 */
export async function readBody(ctx: Context, options: { json: boolean }): Promise<ReadBody> {
  const type = ctx.request.type;
  refuseContentEncoding(ctx);
  const raw = await readRaw(ctx, BODY_LIMIT_BYTES);
  if (type === '' && raw.length === 0) return { params: Object.create(null), form: undefined };
  if (type === FORM) {
    const params = parseForm(decodeUtf8(raw));
    // Another declared charset would make a reader of these bytes decode them otherwise than we did.
    // A bare form type (what clients send) declares none: no parsing of the header's parameters.
    const charset = ctx.req.headers['content-type'] === FORM ? '' : ctx.request.charset.toLowerCase();
    return { params, form: charset === '' || charset === 'utf-8' || charset === 'utf8' ? raw : undefined };
  }
  if (type === JSON_TYPE && options.json)
    return { params: parseJsonParams(decodeUtf8(raw)), form: undefined };
  throw new BadRequestError(
    options.json ? `Content-Type must be ${FORM} or ${JSON_TYPE}` : `Content-Type must be ${FORM}`,
  );
}

/** Bodies here are sent unencoded: any other Content-Encoding is a 400. */
export function refuseContentEncoding(ctx: Context): void {
  const encoding = ctx.get('content-encoding').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity') {
    throw new BadRequestError(`Content-Encoding ${encoding} is not accepted here: send the body unencoded`);
  }
}

/** `readBody`'s parameters only. */
export async function readParams(ctx: Context, options: { json: boolean }): Promise<Params> {
  return (await readBody(ctx, options)).params;
}

/** The one value of a query parameter; a repeated parameter is refused. */
export function singleQueryValue(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  if (Array.isArray(value)) throw new BadRequestError(`Parameter ${name} must not be provided twice`);
  return value === undefined ? undefined : checkValue(name, value);
}
