/**
 * Where a GitHub credential comes from at the moment it is sent: a fixed token (a PAT, the Actions
 * token, `gh`'s), or a GitHub App's installation tokens, minted and renewed before they expire. REST,
 * GraphQL and every git fetch and push ask for the token when they send, never once at the start,
 * so a drain longer than a token's life keeps working.
 */
export interface TokenSource {
  /** `fixed`: one token for the whole run; `app`: an App's installation tokens. */
  readonly kind: 'fixed' | 'app';
  /** The token to send now (cached while it has life left). */
  token(): Promise<string>;
  /**
   * After GitHub refused `rejected` as `Bad credentials`: a token that may work (a fresh one for an
   * App), or undefined when there is none to try (a fixed token cannot be renewed).
   */
  renew(rejected: string): Promise<string | undefined>;
}

/** One token for the whole run. */
export function fixedToken(token: string): TokenSource {
  return {
    kind: 'fixed',
    token: async () => token,
    renew: async () => undefined,
  };
}
