/**
 * An error that is an answer, not a fault: made without capturing a stack trace. The base of
 * AppError (`./errors.ts`) and of the data layer's DataError (`@sched/db/errors`), which must not
 * depend on the HTTP error classes.
 */
export abstract class StacklessError extends Error {
  constructor(message: string) {
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    this.name = new.target.name;
  }
}
