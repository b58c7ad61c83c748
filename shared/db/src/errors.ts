import { StacklessError } from '@sched/kit/stackless-error';

/**
 * What the data layer reports about the data, not how a service answers it: each service's edge
 * turns these into its own responses (the API: services/api/src/errors/data-errors.ts). Like
 * AppError, they are answers rather than faults and carry no stack trace.
 */
export abstract class DataError extends StacklessError {}

/** What kind of record an error is about. */
export type RecordKind =
  | 'user'
  | 'organization'
  | 'team'
  | 'organizationMembership'
  | 'teamMembership'
  | 'invitation'
  | 'role'
  | 'eventType'
  | 'oauthClient'
  | 'oauthClientSecret'
  | 'calendarConnection'
  | 'calendar';

/** The record (or one it needs, such as the user of a new membership) does not exist. */
export class RecordNotFoundError extends DataError {
  readonly kind: RecordKind;

  constructor(kind: RecordKind) {
    super(`${kind} not found`);
    this.kind = kind;
  }
}

/** A unique field already holds this value. */
export class DuplicateRecordError extends DataError {
  readonly kind: RecordKind;
  readonly field: string;

  constructor(kind: RecordKind, field: string) {
    super(`${kind}.${field} already exists`);
    this.kind = kind;
    this.field = field;
  }
}

/** The write would take more records of this kind than the data allows (e.g. active client secrets). */
export class LimitReachedError extends DataError {
  readonly kind: RecordKind;
  readonly limit: number;

  constructor(kind: RecordKind, limit: number, message = `at most ${limit} ${kind} records`) {
    super(message);
    this.kind = kind;
    this.limit = limit;
  }
}

/**
 * The record exists but is in a state that does not allow this write (e.g. a secret for a public
 * OAuth client); `state` names that state.
 */
export class RecordStateError extends DataError {
  readonly kind: RecordKind;
  readonly state: string;

  constructor(kind: RecordKind, state: string, message = `${kind} is ${state}`) {
    super(message);
    this.kind = kind;
    this.state = state;
  }
}

/**
 * A service administrator was asked for with an e-mail whose account has another password: the
 * account is someone's own (perhaps registered with that address first) and is not handed over.
 * The operator resets its password through the address (`reset-password`) and asks again.
 */
export class AdminAccountTakenError extends DataError {
  readonly email: string;
  /** The account is a service administrator already (its password was changed since it was made). */
  readonly alreadyAdmin: boolean;

  constructor(email: string, alreadyAdmin: boolean) {
    super(
      `an account with the e-mail ${email} exists with another password; run reset-password --email ${email} and set the password through its link, then try again`,
    );
    this.email = email;
    this.alreadyAdmin = alreadyAdmin;
  }
}

/**
 * A rule the caller gave the write refused it, judged on the records as they were locked in the
 * write's own transaction (so nothing changed between the check and the write); nothing was
 * written. `reason` is the rule's own answer (the API answers 403 with it).
 */
export class RuleRefusedError extends DataError {
  readonly kind: RecordKind;
  readonly reason: string;

  constructor(kind: RecordKind, reason: string) {
    super(`${kind}: ${reason}`);
    this.kind = kind;
    this.reason = reason;
  }
}
