import { deepFreeze } from '@sched/kit/deep-freeze';

/**
 * Answers built from rows a cache shares between requests: presented once per row object and
 * serialized once per presented object, instead of both on every hit (issue 22: an authorized GET
 * served from the caches spent more on building and stringifying its answer than on deciding
 * access). The presented values are frozen, deeply, so the text kept can never differ from the
 * value; a new row object (the cache refreshed) is presented and serialized afresh.
 */

/** Presented values and their answer's text (null until first serialized). */
const texts = new WeakMap<object, string | null>();

/** `present`, remembered per input object; for rows held by a cache (a fresh row is a new object). */
export function presentedOnce<I extends object, O extends object>(present: (input: I) => O): (input: I) => O {
  const presented = new WeakMap<I, O>();
  return (input) => {
    let output = presented.get(input);
    if (output === undefined) {
      output = deepFreeze(present(input));
      presented.set(input, output);
      texts.set(output, null);
    }
    return output;
  };
}

/**
 * The success envelope's text, `{"status":"success","data":...}` (and `pagination` when given):
 * the bytes JSON.stringify gives the envelope object. Kept per value of `presentedOnce`.
 */
export function successText(data: unknown, pagination?: unknown): string {
  if (pagination !== undefined)
    return `{"status":"success","data":${JSON.stringify(data ?? null)},"pagination":${JSON.stringify(pagination)}}`;
  const known = typeof data === 'object' && data !== null ? texts.get(data) : undefined;
  if (typeof known === 'string') return known;
  const text = `{"status":"success","data":${JSON.stringify(data ?? null)}}`;
  if (known === null) texts.set(data as object, text);
  return text;
}
