import { createHash } from 'node:crypto';
import { Clock, systemClock } from '../../apimachinery/clock';
import { TtlCache } from '../../apimachinery/ttl-cache';
import { UserInfo } from '../../apimachinery/user-info';
import { AuthenticationInfo, AuthenticationStrategy, CredentialRequest } from './authentication-strategy';
import { bearerToken } from './bearer-token';

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

export const TOKEN_CACHE_STRATEGY = 'token-cache';

/** passport's info of a success the cache answered (so it is not cached again). */
export const CACHED_TOKEN: AuthenticationInfo = Object.freeze({ cached: true });

/**
 * kube's cached token authenticator as the union's method in front of the token methods: a
 * recent success with nothing changed since stands; otherwise it passes to them (the union
 * read the revision they start from before the chain ran).
 */
export class TokenCacheStrategy extends AuthenticationStrategy {
  readonly name = TOKEN_CACHE_STRATEGY;

  constructor(readonly cache: TokenCache) {
    super();
  }

  authenticate(req: CredentialRequest): void {
    const token = bearerToken(req);
    if (token === undefined) return this.pass();
    const cached = this.cache.get(token);
    if (cached) return this.success(cached, CACHED_TOKEN);
    this.pass();
  }
}
