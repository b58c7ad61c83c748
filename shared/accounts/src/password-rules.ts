/** The password rule of sign-up, password resets and password changes. */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;
export const PASSWORD_RULE_MESSAGE = 'Use at least 8 characters (at most 256).';

/** The rule's message when `password` breaks it, else undefined. */
export const passwordProblem = (password: string): string | undefined =>
  password.length < PASSWORD_MIN || password.length > PASSWORD_MAX ? PASSWORD_RULE_MESSAGE : undefined;
