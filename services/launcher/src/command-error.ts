/** A command refused its input or the situation: one line for the operator, exit code 1. */
export class CommandInputError extends Error {
  override name = 'CommandInputError';
}
