/**
 * Who is calling and how. Built by the authentication middleware, read by policy checks and
 * handlers. One type for every credential so handlers never look at headers.
 */
export type Caller =
  | {
      kind: 'api-key';
      userId: number;
      serviceAdmin: boolean;
      apiKeyId: number;
    }
  | {
      kind: 'oauth';
      userId: number;
      serviceAdmin: boolean;
      clientId: string;
      /** Granted scopes of the access token. */
      scopes: string[];
      /** Issued to a legacy client: scopes are not enforced. */
      legacy: boolean;
    }
  | {
      /** Deprecated managed-user routes: the `x-svc-secret-key` header proved this client. */
      kind: 'client-secret';
      clientId: string;
    };

export type UserCaller = Extract<Caller, { userId: number }>;
