import { Inject, Injectable, Optional } from '@nestjs/common';
import { Clock, CLOCK, systemClock } from '../apimachinery/clock';
import { ChangeFeedService } from '../storage/changefeed/change-feed.service';
import { TokenCache } from './strategy/token-cache';
import type { Request } from 'express';
import { errors } from '../apimachinery/errors';
import type { WebhookConnection } from '../webhook-client/kubeconfig';
import { certificatesOf } from './strategy/certificate-chain';
import { REQUEST_HEADER_STRATEGY, RequestHeaderSettings, RequestHeaderStrategy, removeIdentityHeaders, STANDARD_REQUEST_HEADERS } from './request-header/request-header';
import { AUDIENCES, AuthenticationStrategy, AUTHENTICATED_AUDIENCES, CREDENTIAL_NOT_AFTER } from './strategy/authentication-strategy';
import { X509_STRATEGY, X509Strategy } from './x509/x509.strategy';
import { TokenFileStrategy } from './token-file/token-file.strategy';
import { bearerToken, malformedBearerToken, PRESENTED_TOKEN, removeBearerToken } from './strategy/bearer-token';
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

type Outcome = { kind: 'success'; user: UserInfo } | { kind: 'fail'; message: string } | { kind: 'pass' };

const PASSED: Outcome = { kind: 'pass' };

/**
 * A strategy made ready to be asked: passport's strategy API (success, fail, pass, error)
 * bound once to an object that inherits from the strategy, as passport's middleware binds it,
 * and reused request after request instead of being rebuilt (with the middleware around it)
 * for every request. A strategy that answers at once hands its binding straight back; one
 * that answers later keeps it until then, so concurrent requests never share one.
 */
interface StrategyBinding extends AuthenticationStrategy {
  /** The answer given while authenticate() ran. */
  answered?: Outcome | Error;
  /** Who waits for an answer given later. */
  waiting?: { resolve(outcome: Outcome): void; reject(err: unknown): void };
}

class BoundStrategy {
  private readonly idle: StrategyBinding[] = [];

  constructor(readonly strategy: AuthenticationStrategy) {}

  /** The strategy's answer for a request: at once when it answers at once. */
  run(req: Request): Outcome | Promise<Outcome> {
    const binding = this.idle.pop() ?? this.bind();
    binding.answered = undefined;
    try {
      binding.authenticate(req);
    } catch (err) {
      this.idle.push(binding);
      throw err;
    }
    // Set by authenticate() through the binding's callbacks (the compiler cannot see that).
    const answered = binding.answered as Outcome | Error | undefined;
    if (answered === undefined) return new Promise((resolve, reject) => (binding.waiting = { resolve, reject }));
    binding.answered = undefined;
    this.idle.push(binding);
    if (answered instanceof Error) throw answered;
    return answered;
  }

  private bind(): StrategyBinding {
    const binding = Object.create(this.strategy) as StrategyBinding;
    const answer = (outcome: Outcome | Error) => {
      const waiting = binding.waiting;
      if (!waiting) {
        binding.answered ??= outcome;
        return;
      }
      binding.waiting = undefined;
      this.idle.push(binding);
      if (outcome instanceof Error) waiting.reject(outcome);
      else waiting.resolve(outcome);
    };
    binding.success = (user: UserInfo) => answer({ kind: 'success', user });
    // passport's fail(challenge, status): the challenge may be left out for the status alone.
    binding.fail = (challenge?: unknown) => answer({ kind: 'fail', message: typeof challenge === 'string' ? challenge : 'rejected' });
    binding.pass = () => answer(PASSED);
    binding.error = (err: unknown) => answer(err instanceof Error ? err : new Error(String(err)));
    binding.redirect = () => answer(new Error(`authentication strategy ${this.strategy.name} redirected`));
    return binding;
  }
}

/** What the union says of a bare token (TokenReview): the user and the audiences it is valid for, or why not. */
export type TokenAuthentication = { authenticated: true; user: UserInfo; audiences: string[] } | { authenticated: false; error: string };

/**
 * The union of the configured authentication methods, as kube's union authenticator:
 * the first method that accepts the request decides; if credentials were presented and
 * none accepted them the request is 401; with none at all it is anonymous (when allowed).
 */
@Injectable()
export class Authenticator {
  /** The union's methods in the order they are asked. */
  private readonly strategies: BoundStrategy[] = [];
  /**
   * Users proved by a connection's client certificate. x509 is asked first and a
   * certificate cannot change, so later requests on that connection skip the strategies.
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
    if (feed && settings.tokenCacheTtlMs) this.tokenCache = new TokenCache(settings.tokenCacheTtlMs, () => feed.headRevision(), clock);
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
    if (settings.staticTokens) this.use(new TokenFileStrategy(settings.staticTokens));
  }

  /** Adds a method to the union (feature modules register theirs at start: bootstrap and service-account tokens). */
  register(strategy: AuthenticationStrategy): void {
    this.use(strategy);
  }

  private use(strategy: AuthenticationStrategy): void {
    if (this.strategies.some((s) => s.strategy.name === strategy.name)) throw new Error(`authentication strategy ${strategy.name} registered twice`);
    this.strategies.push(new BoundStrategy(strategy));
  }

  /**
   * A bearer token through the token methods of the union, as a TokenReview asks: for the
   * given audiences (the API's when none). Never anonymous.
   */
  async authenticateToken(token: string, audiences: string[] | undefined): Promise<TokenAuthentication> {
    // The token as given, not re-read from a header (whose parsing would cut it at a space).
    const req = { headers: {}, socket: {}, [PRESENTED_TOKEN]: token, [AUDIENCES]: audiences?.length ? audiences : undefined } as unknown as Request;
    const reasons: string[] = [];
    for (const bound of this.strategies) {
      if (CONNECTION_STRATEGIES.has(bound.strategy.name)) continue;
      const outcome = await bound.run(req);
      if (outcome.kind === 'success') {
        const granted = (req as unknown as Record<symbol, string[] | undefined>)[AUTHENTICATED_AUDIENCES] ?? audiences ?? [];
        return { authenticated: true, user: withAuthenticatedGroup(outcome.user), audiences: granted };
      }
      if (outcome.kind === 'fail') reasons.push(outcome.message);
    }
    return { authenticated: false, error: reasons.length ? `[${reasons.join(', ')}]` : '' };
  }

  /**
   * The caller of a request. A connection whose client certificate already named its user
   * is answered at once (not through a promise): most requests come on such connections.
   */
  authenticate(req: Request): UserInfo | Promise<UserInfo> {
    const known = this.connectionUsers.get(req.socket);
    if (known && this.clock.now() <= known.until) return this.authenticated(req, { ...known.user, groups: [...known.user.groups] });
    return this.authenticateByMethods(req);
  }

  private async authenticateByMethods(req: Request): Promise<UserInfo> {
    let failure: string | undefined;
    const token = this.tokenCache ? bearerToken(req) : undefined;
    let revision: string | undefined;
    for (const bound of this.strategies) {
      const name = bound.strategy.name;
      if (token !== undefined && revision === undefined && !CONNECTION_STRATEGIES.has(name)) {
        // The token methods' turn: a recent success with nothing changed since stands.
        const cached = this.tokenCache!.get(token);
        if (cached) return this.authenticated(req, cached);
        revision = this.tokenCache!.currentRevision();
      }
      const answer = bound.run(req);
      const outcome = answer instanceof Promise ? await answer : answer;
      if (outcome.kind === 'success') {
        if (name === X509_STRATEGY && !this.requestHeader?.trusts(req.socket)) {
          // Kept with the authenticated group already added, so a later request copies it once.
          this.connectionUsers.set(req.socket, { user: withAuthenticatedGroup({ ...outcome.user, groups: [...outcome.user.groups] }), until: this.x509.validUntil(req.socket) });
        } else if (token !== undefined && revision !== undefined) {
          this.tokenCache!.set(token, outcome.user, revision, (req as unknown as Record<symbol, number | undefined>)[CREDENTIAL_NOT_AFTER]);
        }
        return this.authenticated(req, outcome.user);
      }
      if (outcome.kind === 'fail') failure ??= outcome.message;
    }
    if (failure !== undefined) throw errors.unauthorized();
    // kube's bearer-token authenticators: a token that no method accepts is invalid, never
    // anonymous, and so is a malformed WebSocket token subprotocol.
    if (bearerToken(req) !== undefined || malformedBearerToken(req) !== undefined) throw errors.unauthorized();
    if (!this.settings.anonymous) throw errors.unauthorized();
    if (this.settings.anonymousPaths && !this.settings.anonymousPaths.includes((req.originalUrl ?? req.url).split('?')[0])) throw errors.unauthorized();
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
