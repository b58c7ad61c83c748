/**
 * In-process caches (the resource API's credentials and facts, the calendars' connections of a
 * host). Entries are tagged with the invalidation versions (token store counters, or a database
 * counter such as `users.calendar_version`) that were current when they were loaded; a lookup hands in the versions read
 * for this request, and any difference is a miss. Versions only grow, so a stale entry can never
 * match again. `maxAgeMs` is a safety net for writers that do not bump versions.
 */

/** A version that matches nothing: for entries loaded before their version could be read. */
export const UNKNOWN_VERSION = -1;

interface Entry<V> {
  value: V;
  versions: readonly number[];
  loadedAt: number;
  /** Read since it was last passed over for eviction (second-chance order, see `#evictOne`). */
  used: boolean;
}

export class VersionedCache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #max: number;
  readonly #maxAgeMs: number;

  constructor(options: { max: number; maxAgeMs: number }) {
    this.#max = options.max;
    this.#maxAgeMs = options.maxAgeMs;
  }

  /** The value when present, not too old, and tagged with exactly these versions. */
  get(key: string, versions: readonly number[]): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (!sameVersions(entry.versions, versions) || Date.now() - entry.loadedAt > this.#maxAgeMs) {
      this.#entries.delete(key);
      return undefined;
    }
    // A flag rather than a move to the end: a hit is the hot path and costs no map reordering.
    entry.used = true;
    return entry.value;
  }

  /** The value whatever its versions (to learn which versions to read next time). */
  peek(key: string): V | undefined {
    return this.#entries.get(key)?.value;
  }

  set(key: string, value: V, versions: readonly number[]): void {
    this.#entries.delete(key);
    // Room first, so the entry being set is never the one evicted.
    if (this.#entries.size >= this.#max) this.#evictOne();
    this.#entries.set(key, { value, versions: [...versions], loadedAt: Date.now(), used: false });
  }

  /**
   * Second chance: the oldest entry goes unless it was read since it was last passed over; then
   * it moves to the end with its flag cleared. Entries in use stay, as with an LRU.
   */
  #evictOne(): void {
    for (const [key, entry] of this.#entries) {
      this.#entries.delete(key);
      if (!entry.used) return;
      entry.used = false;
      this.#entries.set(key, entry);
    }
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}

function sameVersions(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i] || a[i] === UNKNOWN_VERSION) return false;
  }
  return true;
}

/** A bounded map for facts that never change once known (a token's user, a team's organization). */
export class BoundedMap<V> {
  readonly #entries = new Map<string, V>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get(key: string): V | undefined {
    return this.#entries.get(key);
  }

  set(key: string, value: V): void {
    if (!this.#entries.has(key) && this.#entries.size >= this.#max) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, value);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}
