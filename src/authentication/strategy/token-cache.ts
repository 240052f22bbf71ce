import { createHash } from 'node:crypto';
import { Clock, systemClock } from '../../apimachinery/clock';
import { TtlCache } from '../../apimachinery/ttl-cache';
import { UserInfo } from '../../apimachinery/user-info';

/** kube-apiserver caches successful token authentications for 10 s (TokenSuccessCacheTTL). */
export const DEFAULT_TOKEN_CACHE_TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  user: UserInfo;
  /** The store revision this process had read when the token was checked. */
  revision: string;
}

/**
 * Successful bearer-token authentications, as kube's cached token authenticator keeps them,
 * keyed by the token's SHA-256 (the token itself is never kept). An entry counts only while
 * the store has not changed since the token was checked (so deleting an account or a token
 * Secret takes effect as soon as this process has read the change), and for at most the TTL.
 */
export class TokenCache {
  private readonly entries: TtlCache<Entry>;

  constructor(
    private readonly ttlMs: number,
    private readonly revision: () => string,
    private readonly clock: Clock = systemClock,
  ) {
    this.entries = new TtlCache(MAX_ENTRIES, clock);
  }

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
    if (entry.revision !== this.revision()) {
      this.entries.delete(key);
      return undefined;
    }
    return { ...entry.user, groups: [...entry.user.groups] };
  }

  /** Kept for the TTL, and never past `notAfter` (when the credential itself expires). */
  set(token: string, user: UserInfo, revision: string, notAfter?: number): void {
    const ttlMs = notAfter === undefined ? this.ttlMs : Math.min(this.ttlMs, notAfter - this.clock.now());
    this.entries.set(TokenCache.key(token), { user: { ...user, groups: [...user.groups] }, revision }, ttlMs);
  }
}
