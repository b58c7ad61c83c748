import type { TestFn } from 'ava';

// A stand-in for a value that a `test.before` hook makes later: test files can name it at module
// level (`system.url`, `user.email`) while the value itself exists only once the hook has run.

/**
 * An object whose properties read through to `get()` each time. `keys` must name every property
 * (the compiler checks that none is missing), so spreading the stand-in copies them all.
 */
export function readThrough<T extends object>(get: () => T, keys: { [K in keyof T]-?: true }): T {
  const view = {} as T;
  for (const key of Object.keys(keys) as Array<keyof T>) {
    Object.defineProperty(view, key, {
      enumerable: true,
      get: () => {
        const target = get();
        const value = target[key];
        // A method keeps its own object as `this`.
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
  return view;
}

/** A holder for a value made in a hook; reading it earlier throws instead of giving undefined. */
export function later<T>(what: string): { set(value: T): void; get(): T; peek(): T | undefined } {
  let value: T | undefined;
  return {
    set: (next) => {
      value = next;
    },
    get: () => {
      if (value === undefined)
        throw new Error(`${what} is not ready: its test.before hook has not run or failed`);
      return value;
    },
    peek: () => value,
  };
}

/**
 * A value the whole file shares: made in a serial `test.before` (so before hooks declared after
 * this call find it ready), disposed of in `test.after.always` when it was made. The result reads
 * through to it, so tests and later hooks can name it at module level.
 */
export function setUpForFile<T extends object, Context>(
  test: TestFn<Context>,
  what: string,
  make: () => Promise<T>,
  dispose: (value: T) => Promise<void>,
  keys: { [K in keyof T]-?: true },
): T {
  const value = later<T>(what);
  test.serial.before(async () => {
    value.set(await make());
  });
  test.after.always(async () => {
    const made = value.peek();
    if (made) await dispose(made);
  });
  return readThrough(value.get, keys);
}
