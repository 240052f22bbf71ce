import type { Request } from 'express';
import { AuthenticationStrategy, requestedAudiences, setAuthenticatedAudiences, setCredentialNotAfter } from '../strategy/authentication-strategy';
import { bearerToken } from '../strategy/bearer-token';
import { JwtAuthenticator, TokenRejected, unverifiedClaims } from './jwt-authenticator';

export const JWT_STRATEGY = 'jwt';

/**
 * The JWT authenticators of `--oidc-*` or `--authentication-config` as one method: a bearer
 * token is routed by its (unverified) `iss` to the authenticator of that issuer, which
 * accepts or rejects it; a token of no configured issuer is not this method's (pass).
 */
export class JwtStrategy extends AuthenticationStrategy {
  readonly name = JWT_STRATEGY;
  private byIssuer = new Map<string, JwtAuthenticator>();

  /** `apiAudiences`: the API's own audiences (kube's audience-agnostic wrapper answers for them only). */
  constructor(private readonly apiAudiences: readonly string[] = []) {
    super();
  }

  /** Installs the authenticators of a (re)loaded configuration; returns the ones replaced. */
  replace(authenticators: JwtAuthenticator[]): JwtAuthenticator[] {
    const previous = [...this.byIssuer.values()];
    this.byIssuer = new Map(authenticators.map((a) => [a.issuer, a]));
    return previous;
  }

  authenticators(): JwtAuthenticator[] {
    return [...this.byIssuer.values()];
  }

  authenticate(req: Request): void {
    const token = bearerToken(req);
    if (token === undefined || this.byIssuer.size === 0) return this.pass();
    const iss = unverifiedClaims(token)?.iss;
    const authenticator = typeof iss === 'string' ? this.byIssuer.get(iss) : undefined;
    if (!authenticator) return this.pass();
    // A TokenReview for other audiences: an ID token is meant for the API (kube's WrapAudienceAgnosticToken).
    if (this.apiAudiences.length) {
      const requested = requestedAudiences(req);
      const granted = requested ? requested.filter((a) => this.apiAudiences.includes(a)) : [...this.apiAudiences];
      if (!granted.length) return this.pass();
      setAuthenticatedAudiences(req, granted);
    }
    authenticator.authenticate(token).then(
      ({ user, expiresAt }) => {
        setCredentialNotAfter(req, expiresAt);
        this.success(user);
      },
      (err: Error) => (err instanceof TokenRejected ? this.fail(err.message, 401) : this.error(err)),
    );
  }
}
