// OAuth client review state machine, legacy clients included (docs/oauth-clients.md "Review state machine").
import { isLegacyScope, isLegacyScopeSet, isRegistrableScope, isScope, scopeLevel } from './scopes.ts';

export const REVIEW_STATUSES = ['PENDING', 'APPROVED', 'REJECTED'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** The client fields whose change matters for review. Other fields (flags, booking redirects) never do. */
export interface ClientReviewFields {
  name: string;
  logo?: string | null;
  websiteUrl?: string | null;
  redirectUris: readonly string[];
  purpose?: string | null;
  scopes: readonly string[];
}

export type Refusal = { ok: false; reason: string };

/**
 * Creation: needs at least one scope, all from the 30 current ones or the OIDC ones (legacy values
 * only exist on old clients).
 */
export function reviewStatusAtCreation(scopes: readonly string[]): { ok: true; status: 'PENDING' } | Refusal {
  if (scopes.length === 0) return { ok: false, reason: 'At least one scope is required' };
  const invalid = scopes.filter((s) => !isRegistrableScope(s));
  if (invalid.length > 0) return { ok: false, reason: `Invalid scopes: ${invalid.join(', ')}` };
  return { ok: true, status: 'PENDING' };
}

/**
 * Only a PENDING client is reviewed. A REJECTED client is not approved directly: its owner edits
 * it, which resubmits it (-> PENDING); an APPROVED one is already decided.
 */
export function approveClient(status: ReviewStatus): { ok: true; status: 'APPROVED' } | Refusal {
  if (status !== 'PENDING')
    return { ok: false, reason: `Only a pending client can be approved (client is ${status})` };
  return { ok: true, status: 'APPROVED' };
}

export function rejectClient(
  status: ReviewStatus,
  reason: string | null | undefined,
): { ok: true; status: 'REJECTED'; rejectionReason: string } | Refusal {
  if (status !== 'PENDING')
    return { ok: false, reason: `Only a pending client can be rejected (client is ${status})` };
  const rejectionReason = (reason ?? '').trim();
  if (rejectionReason === '') return { ok: false, reason: 'A rejection reason is required' };
  return { ok: true, status: 'REJECTED', rejectionReason };
}

export interface ReviewUpdateInput {
  status: ReviewStatus;
  /** The client is legacy before the update (no scopes, or only READ_BOOKING / READ_PROFILE). */
  legacy: boolean;
  before: ClientReviewFields;
  /** The full record after the update (the caller merges the PATCH into `before`). */
  after: ClientReviewFields;
}

export type ReviewUpdateResult =
  | {
      ok: true;
      status: ReviewStatus;
      /** Legacy after the update. */
      legacy: boolean;
      /** This update migrated a legacy client: scopes are enforced for new authorizations. */
      leftLegacy: boolean;
      /** Status moved to PENDING because of this update: notify reviewers. */
      reReview: boolean;
      /** Every detected change, for the audit log. */
      reasons: string[];
    }
  | Refusal;

interface Change {
  reason: string;
  /** Sends an APPROVED client back to review. */
  reReview: boolean;
}

const text = (v: string | null | undefined): string | null => (v == null || v === '' ? null : v);
const minus = (a: readonly string[], b: readonly string[]): string[] => a.filter((x) => !b.includes(x));
const sameSet = (a: readonly string[], b: readonly string[]): boolean =>
  minus(a, b).length === 0 && minus(b, a).length === 0;

function validateScopes(input: ReviewUpdateInput): string | null {
  const { before, after } = input;
  const unknown = after.scopes.filter((s) => !isRegistrableScope(s) && !isLegacyScope(s));
  if (unknown.length > 0) return `Invalid scopes: ${unknown.join(', ')}`;
  const legacyAdded = minus(after.scopes, before.scopes).filter(isLegacyScope);
  if (legacyAdded.length > 0) return `Legacy scopes cannot be added: ${legacyAdded.join(', ')}`;
  // Without this, clearing scopes would turn an enforced client into an unenforced legacy one.
  if (!input.legacy && isLegacyScopeSet(after.scopes)) return 'At least one scope is required';
  return null;
}

function fieldChanges(before: ClientReviewFields, after: ClientReviewFields): Change[] {
  const changes: Change[] = [];
  const add = (changed: boolean, reason: string): void => {
    if (changed) changes.push({ reason, reReview: true });
  };
  add(before.name !== after.name, 'name changed');
  add(text(before.logo) !== text(after.logo), 'logo changed');
  add(text(before.websiteUrl) !== text(after.websiteUrl), 'website URL changed');
  // Order of redirect URIs carries no meaning; compare as sets.
  add(!sameSet(before.redirectUris, after.redirectUris), 'redirect URIs changed');
  add(text(before.purpose) !== text(after.purpose), 'purpose changed');
  return changes;
}

function scopeChanges(legacy: boolean, before: readonly string[], after: readonly string[]): Change[] {
  const changes: Change[] = [];
  const added = minus(after, before);
  const removed = minus(before, after);
  if (legacy) {
    const wide = added.filter((s) => isScope(s) && scopeLevel(s) !== 'user');
    if (wide.length > 0) {
      changes.push({
        reason: `legacy client added team or organization scopes: ${wide.join(', ')}`,
        reReview: true,
      });
    }
    const user = minus(added, wide);
    if (user.length > 0) {
      changes.push({ reason: `legacy client saved user-level scopes: ${user.join(', ')}`, reReview: false });
    }
    // Dropping READ_BOOKING / READ_PROFILE is part of migrating and they were never enforced.
    const legacyRemoved = removed.filter(isLegacyScope);
    if (legacyRemoved.length > 0) {
      changes.push({ reason: `legacy scopes removed: ${legacyRemoved.join(', ')}`, reReview: false });
    }
    const otherRemoved = minus(removed, legacyRemoved);
    if (otherRemoved.length > 0)
      changes.push({ reason: `scopes removed: ${otherRemoved.join(', ')}`, reReview: true });
    return changes;
  }
  // _WRITE does not imply _READ, so adding the _READ is a real addition.
  const readWithWrite = added.filter(
    (s) => s.endsWith('_READ') && before.includes(`${s.slice(0, -5)}_WRITE`),
  );
  for (const s of readWithWrite) {
    changes.push({ reason: `${s} added while ${s.slice(0, -5)}_WRITE is already granted`, reReview: true });
  }
  const plainAdded = minus(added, readWithWrite);
  if (plainAdded.length > 0)
    changes.push({ reason: `scopes added: ${plainAdded.join(', ')}`, reReview: true });
  if (removed.length > 0) changes.push({ reason: `scopes removed: ${removed.join(', ')}`, reReview: true });
  return changes;
}

/**
 * Status after the owner edits the client. APPROVED -> PENDING on any re-review change; REJECTED ->
 * PENDING on any change of a reviewed field (resubmission); PENDING stays PENDING.
 */
export function reviewStatusAfterUpdate(input: ReviewUpdateInput): ReviewUpdateResult {
  const invalid = validateScopes(input);
  if (invalid !== null) return { ok: false, reason: invalid };
  const { status, before, after } = input;
  const changes = [
    ...fieldChanges(before, after),
    ...scopeChanges(input.legacy, before.scopes, after.scopes),
  ];
  const reasons = changes.map((c) => c.reason);
  const stillLegacy = input.legacy && isLegacyScopeSet(after.scopes);
  const leftLegacy = input.legacy && !stillLegacy;
  if (leftLegacy) reasons.push('no longer a legacy client: scopes are enforced for new authorizations');

  let next: ReviewStatus = status;
  if (status === 'APPROVED' && changes.some((c) => c.reReview)) next = 'PENDING';
  if (status === 'REJECTED' && changes.length > 0) {
    next = 'PENDING';
    reasons.push('resubmitted after rejection');
  }
  return { ok: true, status: next, legacy: stillLegacy, leftLegacy, reReview: next !== status, reasons };
}
