// Who is calling, and what they may do. Scopes nest: admin includes write, write includes read.

export const scopes = ['read', 'write', 'admin'] as const;
export type Scope = (typeof scopes)[number];

export interface Principal {
  userId: string;
  kind: 'api_key' | 'jwt';
  /** The API key's id for API-key callers. */
  keyId?: string;
  scopes: readonly Scope[];
  /**
   * The API key's row was not read for this request (Authenticator, confirmInStatement): only a
   * statement that checks keyStillValid (access/board-access.ts) may answer for this principal.
   */
  unconfirmed?: true;
}

const rank: Record<Scope, number> = { read: 0, write: 1, admin: 2 };

export function hasScope(principal: Principal, needed: Scope): boolean {
  return principal.scopes.some((s) => rank[s] >= rank[needed]);
}
