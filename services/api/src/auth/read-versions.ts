/**
 * The invalidation versions read with a credential, by key: a read-only view over the key list
 * and the values the token-store read already returned, instead of a Map (and its hash tables,
 * grown twice for six keys) built on every request (issue 22). A request reads a handful of keys
 * and its caches look each up once or twice: a scan is as fast as a hash here. A key listed twice
 * (the caller is also the member read) has one value, as in a Map: both came from the same read.
 */
export class ReadVersions implements ReadonlyMap<string, number> {
  readonly #keys: readonly string[];
  readonly #values: readonly number[];
  #map: Map<string, number> | undefined;

  constructor(keys: readonly string[], values: readonly number[]) {
    this.#keys = keys;
    this.#values = values;
  }

  get(key: string): number | undefined {
    const keys = this.#keys;
    for (let i = keys.length - 1; i >= 0; i--) if (keys[i] === key) return this.#values[i] ?? 0;
    return undefined;
  }

  has(key: string): boolean {
    return this.#keys.includes(key);
  }

  // Iteration (diagnostics, tests) goes through a Map built on first use: the same order and
  // values a Map filled key by key would give.
  #asMap(): Map<string, number> {
    if (this.#map === undefined) {
      this.#map = new Map();
      for (let i = 0; i < this.#keys.length; i++) this.#map.set(this.#keys[i]!, this.#values[i] ?? 0);
    }
    return this.#map;
  }

  get size(): number {
    return this.#asMap().size;
  }

  forEach(
    callback: (value: number, key: string, map: ReadonlyMap<string, number>) => void,
    thisArg?: unknown,
  ) {
    for (const [key, value] of this.#asMap()) callback.call(thisArg, value, key, this);
  }

  entries() {
    return this.#asMap().entries();
  }

  keys() {
    return this.#asMap().keys();
  }

  values() {
    return this.#asMap().values();
  }

  [Symbol.iterator]() {
    return this.#asMap()[Symbol.iterator]();
  }
}
