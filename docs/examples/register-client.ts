// Registers an OAuth client through the resource API with the developer's API key (the settings
// page "OAuth clients" does the same in a form). The client starts PENDING: it can neither
// authorize nor exchange codes until a service administrator approves it.

export interface NewClient {
  name: string;
  redirectUris: string[];
  scopes: string[];
  clientType: 'confidential' | 'public';
  websiteUrl?: string;
  purpose?: string;
}

export interface RegisteredClient {
  id: string;
  /** The plain secret of a confidential client: shown in this answer only. Null for public clients. */
  secret: string | null;
  reviewStatus: string;
}

export async function registerClient(
  apiBase: string,
  apiKey: string,
  client: NewClient,
): Promise<RegisteredClient> {
  const response = await fetch(new URL('/v2/oauth-clients', apiBase), {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(client),
  });
  const body = await response.json();
  if (response.status !== 201)
    throw new Error(`registration refused (${response.status}): ${JSON.stringify(body)}`);
  const { id, secret, reviewStatus } = body.data;
  return { id, secret, reviewStatus };
}
