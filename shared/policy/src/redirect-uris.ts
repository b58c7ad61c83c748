// Redirect URI matching (RFC 6749 3.1.2.3 exact matching; RFC 8252 7.3 loopback ports).

/** Loopback IP literals whose port a native app picks at run time (not `localhost`: RFC 8252 8.3). */
const LOOPBACK_IPS = new Set(['127.0.0.1', '[::1]']);

/** The URI without its port when it is an http loopback IP literal; null otherwise. */
function portlessLoopback(value: string): string | null {
  if (!value.startsWith('http://')) return null;
  const url = URL.parse(value);
  if (!url || !LOOPBACK_IPS.has(url.hostname) || url.username !== '' || url.password !== '') return null;
  // Compare the text, not a re-serialised URL: only the port may differ, character for character.
  const authority = url.port === '' ? url.hostname : `${url.hostname}:${url.port}`;
  const rest = value.slice('http://'.length);
  if (!rest.startsWith(authority)) return null;
  return `http://${url.hostname}${rest.slice(authority.length)}`;
}

/**
 * Is `requested` one of the registered redirect URIs? Exactly, character for character, except
 * that a registered `http://127.0.0.1[:port]/...` or `http://[::1][:port]/...` matches the same URI
 * with any port (a native app listens on whatever port it gets).
 */
export function redirectUriAllowed(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const wanted = portlessLoopback(requested);
  return wanted !== null && registered.some((uri) => portlessLoopback(uri) === wanted);
}
