import { deepFreeze } from '@sched/kit/deep-freeze';
import { decodeRecord } from './keys.ts';

/** How many distinct records stay parsed (a few MB at most). */
const MAX_RECORDS = 4096;

/**
 * Parsed records by their stored JSON, for the resource API's read of the caller's token on every
 * request: the same few records come back again and again, and parsing their JSON was the largest
 * cost of the read after the round trip itself. Same bytes, same record, so a hit can never be
 * stale; a record with a consumed mark is decoded afresh. Values are frozen because they are
 * shared between requests.
 */
export class DecodedRecords {
  readonly #byJson = new Map<string, object>();
  readonly #max: number;

  constructor(max = MAX_RECORDS) {
    this.#max = max;
  }

  decode<P>(payload: string | null | undefined, consumed: string | null | undefined): P | undefined {
    if (payload === null || payload === undefined || (consumed !== null && consumed !== undefined)) {
      return decodeRecord<P>(payload, consumed);
    }
    let record = this.#byJson.get(payload);
    if (record === undefined) {
      record = deepFreeze(JSON.parse(payload) as object);
      if (this.#byJson.size >= this.#max) {
        const oldest = this.#byJson.keys().next();
        if (!oldest.done) this.#byJson.delete(oldest.value);
      }
      this.#byJson.set(payload, record);
    }
    return record as P;
  }
}
