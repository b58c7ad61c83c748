/**
 * A pure function of one key whose results are kept: the strings the API builds on every request
 * from the same few ids (version keys, Redis key names) are built once instead of per request,
 * which is allocation the young generation no longer has to collect (issue 22). Bounded: the memo
 * is emptied when it reaches `max` entries, so a scan of many ids cannot grow it without limit.
 */
export function memoized<K, V>(build: (key: K) => V, max = 10_000): (key: K) => V {
  const memo = new Map<K, V>();
  return (key) => {
    let value = memo.get(key);
    if (value === undefined) {
      if (memo.size >= max) memo.clear();
      value = build(key);
      memo.set(key, value);
    }
    return value;
  };
}
