import type { AnyRoute } from '../../routing/route.ts';
import { listOrgAuditEventsRoute } from './org-audit-events.ts';

export const auditRoutes: readonly AnyRoute[] = [listOrgAuditEventsRoute];
