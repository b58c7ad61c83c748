// Moved to test/support/factories.ts and test/support/world.ts; this re-export goes away.
export {
  insertCustomRole,
  insertMembership,
  insertMemberships,
  insertOrganization,
  insertTeam,
  insertUser,
  insertUsers,
  type MembershipRow,
  type RoleName,
  type TestUser,
} from '../../support/factories.ts';
export { buildScene, type MemberSpec, type Scene } from '../../support/world.ts';
