import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Request } from 'express';
import { Authenticator as Passport, type Strategy as PassportStrategy } from 'passport';
import { Clock, CLOCK, systemClock } from '../apimachinery/clock';
import { ChangeFeedService } from '../storage/changefeed/change-feed.service';
import { TOKEN_CACHE_STRATEGY, TokenCache, TokenCacheStrategy } from './strategy/token-cache';
import { errors } from '../apimachinery/errors';
import type { WebhookConnection } from '../webhook-client/kubeconfig';
import { certificatesOf } from './strategy/certificate-chain';
import { REQUEST_HEADER_STRATEGY, RequestHeaderSettings, RequestHeaderStrategy, removeIdentityHeaders, STANDARD_REQUEST_HEADERS } from './request-header/request-header';
import { AuthenticationInfo, AuthenticationMethod, CredentialRequest } from './strategy/authentication-strategy';
import { X509_STRATEGY, X509Strategy } from './x509/x509.strategy';
import { TokenFileStrategy } from './token-file/token-file.strategy';
import { bearerToken, malformedBearerToken, removeBearerToken } from './strategy/bearer-token';
import { anonymousUser, UserInfo, withAuthenticatedGroup } from '../apimachinery/user-info';

/** How callers authenticate, as the configuration loaded at start settles it. */
export interface AuthenticationSettings {
  /** Requests without credentials run as system:anonymous (--anonymous-auth, off with AlwaysAllow). */
  anonymous: boolean;
  /** The `anonymous.conditions` of --authentication-config: anonymous requests only to these paths. */
  anonymousPaths?: string[];
  /** --token-auth-file, read: each token and the identity it stands for. */
  staticTokens?: Map<string, UserInfo>;
  /** How long a bearer token's successful authentication is reused (kube: 10 s); 0: never. */
  tokenCacheTtlMs?: number;
  /** The --requestheader-* flags: identity headers from an authenticating proxy. */
  requestHeader?: RequestHeaderSettings;
  /** The authorities of user client certificates (set at start, once the data-dir CA exists). */
  clientCaPems?: string[];
  /** The --authentication-token-webhook-* flags, the kubeconfig read. */
  tokenWebhook?: { connection: WebhookConnection; version: 'v1' | 'v1beta1'; cacheTtlMs: number };
}

export const AUTHENTICATION_SETTINGS = Symbol('AUTHENTICATION_SETTINGS');

/** The methods that read the connection (its client certificate), not a token. */
const CONNECTION_STRATEGIES = new Set([REQUEST_HEADER_STRATEGY, X509_STRATEGY]);

/** The challenge of a method that found no credential of its kind (its `pass()` in the chain). */
const NO_CREDENTIAL = Symbol('no credential of this kind');

type ChainAction = { fail(challenge?: unknown, status?: number): void };

function noCredential(this: ChainAction): void {
  this.fail(NO_CREDENTIAL);
}

/**
 * A method as the union registers it with passport. In passport's chain `pass()` ends the
 * chain (the request goes on as it is), while in kube's union a method that finds no
 * credential of its kind hands over to the next one: here its `pass()` is a failure without
 * a challenge of its own, so passport asks the next method.
 */
function chainMember(method: AuthenticationMethod): PassportStrategy {
  return Object.create(method, {
    authenticate: {
      value(this: ChainAction & { pass(): void }, req: CredentialRequest, options?: unknown) {
        this.pass = noCredential;
        method.authenticate.call(this as never, req as never, options);
      },
    },
  }) as PassportStrategy;
}

/** What passport's chain ends with: the first success (and its info), or every method's challenge in order. */
type ChainOutcome = { user: UserInfo; info: AuthenticationInfo | undefined } | { user: false; challenges: unknown[] };

/** The chain's options: no session (every request authenticates), the outcome handed to the union. */
const CHAIN_OPTIONS = Object.freeze({ session: false });

/**
 * passport's redirect action writes to the response; no method of the union redirects (the
 * union is given no response, as no method may answer the request itself).
 */
const NO_RESPONSE = {
  setHeader(): never {
    throw new Error('an authentication method redirected');
  },
};

/**
 * What passport's chain runs on: the request as the methods read it (a small object rather
 * than Node's request: passport gives the object it runs on its session helpers, `login`,
 * `logout`, ..., and reshaping Node's request object that way cost each request more than
 * the whole chain). The helpers' slots are declared, so passport finds them in place.
 */
class ChainRequest implements CredentialRequest {
  readonly headers: CredentialRequest['headers'];
  readonly socket: CredentialRequest['socket'];
  login: unknown = undefined;
  logIn: unknown = undefined;
  logout: unknown = undefined;
  logOut: unknown = undefined;
  isAuthenticated: unknown = undefined;
  isUnauthenticated: unknown = undefined;
  _sessionManager: unknown = undefined;

  constructor(
    private readonly request: Pick<Request, 'headers' | 'socket' | 'headersDistinct'>,
    readonly presentedToken?: string,
    readonly audiences?: string[],
  ) {
    this.headers = request.headers;
    this.socket = request.socket;
  }

  /** The request-header method's per-name headers, as Node makes them (on first read). */
  get headersDistinct(): CredentialRequest['headersDistinct'] {
    return this.request.headersDistinct;
  }
}

/** A TokenReview's token has no request around it. */
const NO_REQUEST = Object.freeze({ headers: {}, socket: {} as Request['socket'], headersDistinct: {} });

/** kube's reason for a refusal: a method's challenge (its message), else that it rejected the credential. */
function reasonOf(challenge: unknown): string {
  return typeof challenge === 'string' ? challenge : 'rejected';
}

/** Whether a method's challenge refuses a credential it found (rather than finding none of its kind). */
const refusal = (challenge: unknown) => challenge !== NO_CREDENTIAL;

/** What the union says of a bare token (TokenReview): the user and the audiences it is valid for, or why not. */
export type TokenAuthentication = { authenticated: true; user: UserInfo; audiences: string[] } | { authenticated: false; error: string };

/**
 * The union of the configured authentication methods, as kube's union authenticator: the
 * methods are passport strategies run through passport's chain in kube's order, the first
 * that accepts the request decides; if credentials were presented and none accepted them
 * the request is 401; with none at all it is anonymous (when allowed).
 */
@Injectable()
export class Authenticator {
  /** The union's own passport (not the process-wide one): each method registered under its name. */
  private readonly passport = new Passport();
  /** The methods asked for a request, in kube's order. */
  private readonly requestChain: string[] = [];
  /** The methods asked for a bare token (a TokenReview): the token methods, without the token cache. */
  private readonly tokenChain: string[] = [];
  /**
   * Users proved by a connection's client certificate. x509 is asked first and a
   * certificate cannot change, so later requests on that connection skip the chain.
   */
  private readonly connectionUsers = new WeakMap<object, { user: UserInfo; until: number }>();
  private readonly x509: X509Strategy;
  private readonly requestHeader?: RequestHeaderStrategy;
  private readonly tokenCache?: TokenCache;

  constructor(
    @Inject(AUTHENTICATION_SETTINGS) private readonly settings: AuthenticationSettings,
    @Optional() feed?: ChangeFeedService,
    /** What certificate validity and cached successes are checked against. */
    @Optional() @Inject(CLOCK) private readonly clock: Clock = systemClock,
  ) {
    // kube's order: the authenticating proxy, client certificates, then the token methods.
    if (settings.requestHeader) {
      this.requestHeader = new RequestHeaderStrategy(settings.requestHeader, clock);
      this.use(this.requestHeader);
      // The TLS layer then also trusts the proxies' authority, which names no user.
      this.x509 = new X509Strategy(certificatesOf((settings.clientCaPems ?? []).join('\n')), clock);
    } else {
      this.x509 = new X509Strategy(undefined, clock);
    }
    this.use(this.x509);
    if (feed && settings.tokenCacheTtlMs) {
      this.tokenCache = new TokenCache(settings.tokenCacheTtlMs, () => feed.headRevision(), clock);
      this.use(new TokenCacheStrategy(this.tokenCache));
    }
    if (settings.staticTokens) this.use(new TokenFileStrategy(settings.staticTokens));
  }

  /** Adds a method to the union (feature modules register theirs at start: bootstrap and service-account tokens, JWT issuers, the webhook). */
  register(method: AuthenticationMethod): void {
    this.use(method);
  }

  private use(method: AuthenticationMethod): void {
    if (this.requestChain.includes(method.name)) throw new Error(`authentication strategy ${method.name} registered twice`);
    this.passport.use(method.name, chainMember(method));
    this.requestChain.push(method.name);
    if (!CONNECTION_STRATEGIES.has(method.name) && method.name !== TOKEN_CACHE_STRATEGY) this.tokenChain.push(method.name);
  }

  /**
   * Runs passport's chain over `names` for a request: at once when every method asked
   * answers at once, else once the last one has.
   */
  private runChain(req: ChainRequest, names: string[]): ChainOutcome | Promise<ChainOutcome> {
    let answered: ChainOutcome | Error | undefined;
    let waiting: ((answer: ChainOutcome | Error) => void) | undefined;
    const answer = (outcome: ChainOutcome | Error) => {
      if (waiting) waiting(outcome);
      else answered ??= outcome;
    };
    const chain = this.passport.authenticate(names, CHAIN_OPTIONS, (err: unknown, user: UserInfo | false, info: unknown) => {
      if (err) answer(err instanceof Error ? err : new Error(String(err)));
      else if (user) answer({ user, info: info as AuthenticationInfo | undefined });
      else answer({ user: false, challenges: info as unknown[] });
    }) as (req: ChainRequest, res: unknown, next: (err?: unknown) => void) => void;
    // passport calls next() only for a strategy it does not know, and never once every method has answered.
    chain(req, NO_RESPONSE, (err?: unknown) => answer(err instanceof Error ? err : new Error(`authentication chain ended early: ${String(err)}`)));
    if (answered === undefined) {
      return new Promise((resolve, reject) => (waiting = (outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome))));
    }
    if (answered instanceof Error) throw answered;
    return answered;
  }

  /**
   * A bearer token through the token methods of the union, as a TokenReview asks: for the
   * given audiences (the API's when none). Never anonymous.
   */
  async authenticateToken(token: string, audiences: string[] | undefined): Promise<TokenAuthentication> {
    // The token as given, not re-read from a header (whose parsing would cut it at a space).
    const outcome = await this.runChain(new ChainRequest(NO_REQUEST, token, audiences?.length ? audiences : undefined), this.tokenChain);
    if (outcome.user) {
      const granted = outcome.info?.audiences ?? audiences ?? [];
      return { authenticated: true, user: withAuthenticatedGroup(outcome.user), audiences: granted };
    }
    const reasons = outcome.challenges.filter(refusal).map(reasonOf);
    return { authenticated: false, error: reasons.length ? `[${reasons.join(', ')}]` : '' };
  }

  /**
   * The caller of a request. It comes at once (not through a promise) when every method
   * asked answered at once, as on a connection whose client certificate already named its
   * user (most requests come on such connections); a refusal always comes as a rejection.
   */
  authenticate(req: Request): UserInfo | Promise<UserInfo> {
    const known = this.connectionUsers.get(req.socket);
    if (known && this.clock.now() <= known.until) return this.authenticated(req, { ...known.user, groups: [...known.user.groups] });
    try {
      // The revision the token methods start from, read before they run: a success is cached with it.
      const token = this.tokenCache && bearerToken(req);
      const check = token === undefined ? undefined : { token, revision: this.tokenCache!.currentRevision() };
      const outcome = this.runChain(new ChainRequest(req), this.requestChain);
      return outcome instanceof Promise ? outcome.then((o) => this.decide(req, check, o)) : this.decide(req, check, outcome);
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  /** The union's answer once passport's chain has ended (`check`: the bearer token and the revision its check started from). */
  private decide(req: Request, check: { token: string; revision: string } | undefined, outcome: ChainOutcome): UserInfo | Promise<UserInfo> {
    if (outcome.user) {
      const { user, info } = outcome;
      if (info?.connection && !this.requestHeader?.trusts(req.socket)) {
        // Kept with the authenticated group already added, so a later request copies it once.
        this.connectionUsers.set(req.socket, { user: withAuthenticatedGroup({ ...user, groups: [...user.groups] }), until: this.x509.validUntil(req.socket) });
      } else if (check && !info?.cached) {
        this.tokenCache!.set(check.token, user, check.revision, info?.notAfter);
      }
      return this.authenticated(req, user);
    }
    if (outcome.challenges.some(refusal)) return Promise.reject(errors.unauthorized());
    // kube's bearer-token authenticators: a token that no method accepts is invalid, never
    // anonymous, and so is a malformed WebSocket token subprotocol.
    if (bearerToken(req) !== undefined || malformedBearerToken(req) !== undefined) return Promise.reject(errors.unauthorized());
    if (!this.settings.anonymous) return Promise.reject(errors.unauthorized());
    if (this.settings.anonymousPaths && !this.settings.anonymousPaths.includes((req.originalUrl ?? req.url).split('?')[0])) return Promise.reject(errors.unauthorized());
    this.removeCredentials(req);
    return anonymousUser();
  }

  private authenticated(req: Request, user: UserInfo): UserInfo {
    this.removeCredentials(req);
    return withAuthenticatedGroup(user);
  }

  /**
   * kube drops the credential once it has been used, so handlers never see it, and the proxy
   * identity headers (standard and configured) so that no later stage takes them for identity.
   */
  private removeCredentials(req: Request): void {
    removeBearerToken(req);
    removeIdentityHeaders(req.headers, STANDARD_REQUEST_HEADERS);
    this.requestHeader?.removeHeaders(req);
  }
}
