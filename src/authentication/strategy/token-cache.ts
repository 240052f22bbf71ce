import { createHash } from 'node:crypto';
import { UserInfo } from '../../apimachinery/user-info';

/** kube-apiserver caches successful token authentications for 10 s (TokenSuccessCacheTTL). */
export const DEFAULT_TOKEN_CACHE_TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  user: UserInfo;
  /** The store revision this process had read when the token was checked. */
  revision: string;
  until: number;
}

/**
 * Successful bearer-token authentications, as kube's cached token authenticator keeps them,
 * keyed by the token's SHA-256 (the token itself is never kept). An entry counts only while
 * the store has not changed since the token was checked (so deleting an account or a token
 * Secret takes effect as soon as this process has read the change), and for at most the TTL.
 */
export class TokenCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly revision: () => string,
  ) {}

  private static key(token: string): string {
    return createHash('sha256').update(token).digest('base64');
  }

  /** The revision to record with a check that is about to start. */
  currentRevision(): string {
    return this.revision();
  }

  get(token: string): UserInfo | undefined {
    const key = TokenCache.key(token);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.revision !== this.revision() || Date.now() > entry.until) {
      this.entries.delete(key);
      return undefined;
    }
    return { ...entry.user, groups: [...entry.user.groups] };
  }

  set(token: string, user: UserInfo, revision: string, notAfter?: number): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    const until = Math.min(Date.now() + this.ttlMs, notAfter ?? Infinity);
    this.entries.set(TokenCache.key(token), { user: { ...user, groups: [...user.groups] }, revision, until });
  }
}
