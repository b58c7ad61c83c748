import { randomToken } from '@sched/kit/secrets';
import type { AuthDeps } from '../deps.ts';

/**
 * A new secret is shown once: the POST that made it keeps it for a few minutes under a random id
 * in the token store and redirects to the client's page with that id; the page consumes it
 * (atomically, so two tabs cannot both show it) and deletes it. A reload, the back button or a
 * copied link then shows that it is gone. The record is bound to the user who made it.
 */
const MODEL = 'SettingsSecretReveal';
const TTL_SECONDS = 5 * 60;

interface RevealRecord {
  userId: number;
  clientId: string;
  secret: string;
  hint: string;
  [key: string]: unknown;
}

export async function keepForReveal(
  deps: AuthDeps,
  record: { userId: number; clientId: string; secret: string; hint: string },
): Promise<string> {
  const id = randomToken(24);
  await deps.runtime.stores.tokenStore.upsert(MODEL, id, { ...record }, TTL_SECONDS);
  return id;
}

/** The secret behind `id` for this user and client, once; null when used, expired or not theirs. */
export async function takeReveal(
  deps: AuthDeps,
  id: string,
  userId: number,
  clientId: string,
): Promise<{ secret: string; hint: string } | null> {
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(id)) return null;
  const store = deps.runtime.stores.tokenStore;
  const record = await store.find<RevealRecord>(MODEL, id);
  if (!record || record.userId !== userId || record.clientId !== clientId) return null;
  if (!(await store.consume(MODEL, id))) return null;
  await store.destroy(MODEL, id);
  return { secret: record.secret, hint: record.hint };
}
