import {
  approveClient,
  type ClientReviewFields,
  REVIEW_STATUSES,
  type ReviewStatus,
  type ReviewUpdateResult,
  rejectClient,
  reviewStatusAfterUpdate,
  reviewStatusAtCreation,
} from '@sched/policy/client-review';
import test from 'ava';

// --- creation ---
const creation: [string, string[], ReturnType<typeof reviewStatusAtCreation>][] = [
  ['one scope', ['BOOKING_READ'], { ok: true, status: 'PENDING' }],
  ['team and org scopes', ['TEAM_BOOKING_READ', 'ORG_MEMBERSHIP_WRITE'], { ok: true, status: 'PENDING' }],
  ['no scope', [], { ok: false, reason: 'At least one scope is required' }],
  ['unknown scope', ['BOOKING_READ', 'FOO'], { ok: false, reason: 'Invalid scopes: FOO' }],
  ['legacy scope', ['READ_BOOKING'], { ok: false, reason: 'Invalid scopes: READ_BOOKING' }],
];
for (const [name, scopes, expected] of creation) {
  test(`reviewStatusAtCreation: ${name}`, (t) => {
    t.deepEqual(reviewStatusAtCreation(scopes), expected);
  });
}

// --- review decisions from every status ---
for (const status of REVIEW_STATUSES) {
  test(`approveClient from ${status}`, (t) => {
    const r = approveClient(status);
    if (status === 'PENDING') t.deepEqual(r, { ok: true, status: 'APPROVED' });
    else t.deepEqual(r, { ok: false, reason: `Only a pending client can be approved (client is ${status})` });
  });
  test(`rejectClient from ${status}`, (t) => {
    const r = rejectClient(status, 'Logo is misleading');
    if (status === 'PENDING')
      t.deepEqual(r, { ok: true, status: 'REJECTED', rejectionReason: 'Logo is misleading' });
    else t.deepEqual(r, { ok: false, reason: `Only a pending client can be rejected (client is ${status})` });
  });
}

const reasons: [string | null | undefined, string | null][] = [
  ['  spaces trimmed  ', 'spaces trimmed'],
  ['', null],
  ['   \n\t', null],
  [null, null],
  [undefined, null],
];
for (const [reason, kept] of reasons) {
  test(`rejectClient reason ${JSON.stringify(reason) ?? 'undefined'}`, (t) => {
    const r = rejectClient('PENDING', reason);
    if (kept === null) t.deepEqual(r, { ok: false, reason: 'A rejection reason is required' });
    else t.deepEqual(r, { ok: true, status: 'REJECTED', rejectionReason: kept });
  });
}

// --- updates ---
const base: ClientReviewFields = {
  name: 'Acme',
  logo: 'https://acme.test/logo.png',
  websiteUrl: 'https://acme.test',
  redirectUris: ['https://acme.test/cb', 'http://localhost:3000/cb'],
  purpose: 'Sync bookings',
  scopes: ['BOOKING_READ', 'BOOKING_WRITE', 'PROFILE_READ'],
};
const legacyBase: ClientReviewFields = { ...base, scopes: ['READ_BOOKING'] };

type Case = {
  name: string;
  legacy?: boolean;
  before?: ClientReviewFields;
  after: Partial<ClientReviewFields>;
  /** Expected status when the client was APPROVED. */
  fromApproved: ReviewStatus;
  reasons: string[];
  legacyAfter?: boolean;
};

const cases: Case[] = [
  { name: 'nothing changed', after: {}, fromApproved: 'APPROVED', reasons: [] },
  { name: 'name changed', after: { name: 'Acme 2' }, fromApproved: 'PENDING', reasons: ['name changed'] },
  {
    name: 'logo changed',
    after: { logo: 'https://acme.test/new.png' },
    fromApproved: 'PENDING',
    reasons: ['logo changed'],
  },
  { name: 'logo removed', after: { logo: null }, fromApproved: 'PENDING', reasons: ['logo changed'] },
  {
    name: 'website URL changed',
    after: { websiteUrl: 'https://acme.example' },
    fromApproved: 'PENDING',
    reasons: ['website URL changed'],
  },
  {
    name: 'purpose changed',
    after: { purpose: 'Sync everything' },
    fromApproved: 'PENDING',
    reasons: ['purpose changed'],
  },
  {
    name: 'redirect URI added',
    after: { redirectUris: [...base.redirectUris, 'https://acme.test/cb2'] },
    fromApproved: 'PENDING',
    reasons: ['redirect URIs changed'],
  },
  {
    name: 'redirect URI removed',
    after: { redirectUris: ['https://acme.test/cb'] },
    fromApproved: 'PENDING',
    reasons: ['redirect URIs changed'],
  },
  {
    name: 'redirect URI replaced',
    after: { redirectUris: ['https://acme.test/other', 'http://localhost:3000/cb'] },
    fromApproved: 'PENDING',
    reasons: ['redirect URIs changed'],
  },
  {
    name: 'redirect URIs reordered only',
    after: { redirectUris: ['http://localhost:3000/cb', 'https://acme.test/cb'] },
    fromApproved: 'APPROVED',
    reasons: [],
  },
  {
    name: 'scopes reordered only',
    after: { scopes: ['PROFILE_READ', 'BOOKING_WRITE', 'BOOKING_READ'] },
    fromApproved: 'APPROVED',
    reasons: [],
  },
  {
    name: 'empty purpose vs null is no change',
    before: { ...base, purpose: null },
    after: { purpose: '' },
    fromApproved: 'APPROVED',
    reasons: [],
  },
  {
    name: 'scope added',
    after: { scopes: [...base.scopes, 'EVENT_TYPE_READ'] },
    fromApproved: 'PENDING',
    reasons: ['scopes added: EVENT_TYPE_READ'],
  },
  {
    name: 'team scope added',
    after: { scopes: [...base.scopes, 'TEAM_BOOKING_READ'] },
    fromApproved: 'PENDING',
    reasons: ['scopes added: TEAM_BOOKING_READ'],
  },
  {
    name: 'scope removed',
    after: { scopes: ['BOOKING_READ', 'BOOKING_WRITE'] },
    fromApproved: 'PENDING',
    reasons: ['scopes removed: PROFILE_READ'],
  },
  {
    name: 'scope swapped',
    after: { scopes: ['BOOKING_READ', 'BOOKING_WRITE', 'PROFILE_WRITE'] },
    fromApproved: 'PENDING',
    reasons: ['scopes added: PROFILE_WRITE', 'scopes removed: PROFILE_READ'],
  },
  {
    name: '_READ added while _WRITE granted',
    before: { ...base, scopes: ['SCHEDULE_WRITE'] },
    after: { scopes: ['SCHEDULE_WRITE', 'SCHEDULE_READ'] },
    fromApproved: 'PENDING',
    reasons: ['SCHEDULE_READ added while SCHEDULE_WRITE is already granted'],
  },
  {
    name: 'TEAM_ _READ added while its _WRITE granted',
    before: { ...base, scopes: ['TEAM_MEMBERSHIP_WRITE'] },
    after: { scopes: ['TEAM_MEMBERSHIP_WRITE', 'TEAM_MEMBERSHIP_READ', 'APPS_READ'] },
    fromApproved: 'PENDING',
    reasons: [
      'TEAM_MEMBERSHIP_READ added while TEAM_MEMBERSHIP_WRITE is already granted',
      'scopes added: APPS_READ',
    ],
  },
  {
    name: '_WRITE removed leaving _READ',
    after: { scopes: ['BOOKING_READ', 'PROFILE_READ'] },
    fromApproved: 'PENDING',
    reasons: ['scopes removed: BOOKING_WRITE'],
  },
  {
    name: 'several changes',
    after: { name: 'X', scopes: ['BOOKING_READ'] },
    fromApproved: 'PENDING',
    reasons: ['name changed', 'scopes removed: BOOKING_WRITE, PROFILE_READ'],
  },
  // legacy clients
  {
    name: 'legacy: nothing changed',
    legacy: true,
    before: legacyBase,
    after: {},
    fromApproved: 'APPROVED',
    reasons: [],
    legacyAfter: true,
  },
  {
    name: 'legacy without scopes: nothing changed',
    legacy: true,
    before: { ...base, scopes: [] },
    after: {},
    fromApproved: 'APPROVED',
    reasons: [],
    legacyAfter: true,
  },
  {
    name: 'legacy: only user-level scopes saved',
    legacy: true,
    before: { ...base, scopes: [] },
    after: { scopes: ['BOOKING_READ', 'PROFILE_READ'] },
    fromApproved: 'APPROVED',
    reasons: [
      'legacy client saved user-level scopes: BOOKING_READ, PROFILE_READ',
      'no longer a legacy client: scopes are enforced for new authorizations',
    ],
    legacyAfter: false,
  },
  {
    name: 'legacy: user-level scopes saved, legacy values dropped',
    legacy: true,
    before: { ...base, scopes: ['READ_BOOKING', 'READ_PROFILE'] },
    after: { scopes: ['BOOKING_READ', 'PROFILE_READ'] },
    fromApproved: 'APPROVED',
    reasons: [
      'legacy client saved user-level scopes: BOOKING_READ, PROFILE_READ',
      'legacy scopes removed: READ_BOOKING, READ_PROFILE',
      'no longer a legacy client: scopes are enforced for new authorizations',
    ],
    legacyAfter: false,
  },
  {
    name: 'legacy: user-level scopes saved, legacy value kept',
    legacy: true,
    before: legacyBase,
    after: { scopes: ['READ_BOOKING', 'BOOKING_READ'] },
    fromApproved: 'APPROVED',
    reasons: [
      'legacy client saved user-level scopes: BOOKING_READ',
      'no longer a legacy client: scopes are enforced for new authorizations',
    ],
    legacyAfter: false,
  },
  {
    name: 'legacy: TEAM_ scope added',
    legacy: true,
    before: legacyBase,
    after: { scopes: ['TEAM_BOOKING_READ'] },
    fromApproved: 'PENDING',
    reasons: [
      'legacy client added team or organization scopes: TEAM_BOOKING_READ',
      'legacy scopes removed: READ_BOOKING',
      'no longer a legacy client: scopes are enforced for new authorizations',
    ],
    legacyAfter: false,
  },
  {
    name: 'legacy: ORG_ and user scopes added',
    legacy: true,
    before: { ...base, scopes: [] },
    after: { scopes: ['BOOKING_READ', 'ORG_PROFILE_READ'] },
    fromApproved: 'PENDING',
    reasons: [
      'legacy client added team or organization scopes: ORG_PROFILE_READ',
      'legacy client saved user-level scopes: BOOKING_READ',
      'no longer a legacy client: scopes are enforced for new authorizations',
    ],
    legacyAfter: false,
  },
  {
    name: 'legacy: one legacy value dropped, still legacy',
    legacy: true,
    before: { ...base, scopes: ['READ_BOOKING', 'READ_PROFILE'] },
    after: { scopes: ['READ_PROFILE'] },
    fromApproved: 'APPROVED',
    reasons: ['legacy scopes removed: READ_BOOKING'],
    legacyAfter: true,
  },
  {
    name: 'legacy: name changed',
    legacy: true,
    before: legacyBase,
    after: { name: 'New' },
    fromApproved: 'PENDING',
    reasons: ['name changed'],
    legacyAfter: true,
  },
];

const merge = (c: Case): { before: ClientReviewFields; after: ClientReviewFields } => {
  const before = c.before ?? base;
  return { before, after: { ...before, ...c.after } };
};

// Each case from each status: APPROVED per table; PENDING stays; REJECTED resubmits on any change.
for (const c of cases) {
  for (const status of REVIEW_STATUSES) {
    test(`reviewStatusAfterUpdate from ${status}: ${c.name}`, (t) => {
      const legacy = c.legacy ?? false;
      const result = reviewStatusAfterUpdate({ status, legacy, ...merge(c) });
      const changed = c.reasons.length > 0;
      const next: ReviewStatus =
        status === 'APPROVED' ? c.fromApproved : status === 'REJECTED' && changed ? 'PENDING' : status;
      const expected: ReviewUpdateResult = {
        ok: true,
        status: next,
        legacy: c.legacyAfter ?? legacy,
        leftLegacy: legacy && c.legacyAfter === false,
        reReview: next !== status,
        reasons: status === 'REJECTED' && changed ? [...c.reasons, 'resubmitted after rejection'] : c.reasons,
      };
      t.deepEqual(result, expected);
    });
  }
}

const refusals: [string, boolean, ClientReviewFields, string[], string][] = [
  ['unknown scope', false, base, ['BOOKING_READ', 'FOO'], 'Invalid scopes: FOO'],
  ['wrongly cased scope', false, base, ['booking_read'], 'Invalid scopes: booking_read'],
  [
    'legacy value added to a scoped client',
    false,
    base,
    [...base.scopes, 'READ_PROFILE'],
    'Legacy scopes cannot be added: READ_PROFILE',
  ],
  [
    'legacy value added to a legacy client',
    true,
    legacyBase,
    ['READ_BOOKING', 'READ_PROFILE'],
    'Legacy scopes cannot be added: READ_PROFILE',
  ],
  ['scoped client clears its scopes', false, base, [], 'At least one scope is required'],
  [
    'scoped client keeps only a legacy value',
    false,
    { ...base, scopes: ['READ_BOOKING', 'BOOKING_READ'] },
    ['READ_BOOKING'],
    'At least one scope is required',
  ],
];
for (const [name, legacy, before, scopes, reason] of refusals) {
  test(`reviewStatusAfterUpdate refuses: ${name}`, (t) => {
    t.deepEqual(
      reviewStatusAfterUpdate({ status: 'APPROVED', legacy, before, after: { ...before, scopes } }),
      {
        ok: false,
        reason,
      },
    );
  });
}

test('reviewStatusAfterUpdate: a scoped client may keep a legacy value it already had', (t) => {
  const before = { ...base, scopes: ['READ_BOOKING', 'BOOKING_READ'] };
  const r = reviewStatusAfterUpdate({
    status: 'APPROVED',
    legacy: false,
    before,
    after: { ...before, name: 'New' },
  });
  t.like(r, { ok: true, status: 'PENDING', legacy: false, leftLegacy: false });
});
