import type { Call } from './http.ts';

/** An event as `GET /v2/admin/audit-events` answers it. */
export interface AuditEventOutput {
  id: number;
  action: string;
  actor: { type: string; userId: number | null; apiKeyId: number | null; clientId: string | null };
  target: { type: string; id: string | null };
  organizationId: number | null;
  before: unknown;
  after: unknown;
  details: Record<string, unknown>;
  requestId: string | null;
  ipAddress: string | null;
  createdAt: string;
}

/** The admin audit view for `query` (newest first), read with a service administrator's key. */
export async function adminAuditEvents(
  world: { call: Call; admin: { apiKey: string } },
  query: string,
): Promise<AuditEventOutput[]> {
  const answer = await world.call('GET', `/v2/admin/audit-events?${query}`, { token: world.admin.apiKey });
  if (answer.status !== 200) throw new Error(JSON.stringify(answer.body));
  return answer.body.data as AuditEventOutput[];
}
