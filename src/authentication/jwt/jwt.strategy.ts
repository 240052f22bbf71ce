import type { KeyObject } from 'node:crypto';
import { SUPPORTED_SIGNING_ALGS } from '../../config/options';
import { CredentialRequest } from '../strategy/authentication-strategy';
import { JwtMethod, TokenRejected, unverifiedClaims, VerifiedToken } from '../strategy/jwt-method';
import type { AuthenticatedToken, JwtAuthenticator } from './jwt-authenticator';

export const JWT_STRATEGY = 'jwt';

/**
 * A token routed to the authenticator of its issuer, when its verification started (for the
 * metrics), and the audiences it is valid for when the API has some.
 */
interface Routed {
  authenticator: JwtAuthenticator;
  started: number;
  audiences?: string[];
}

/**
 * The JWT authenticators of `--oidc-*` or `--authentication-config` as one method, verified
 * by passport-jwt: a bearer token is routed by its (unverified) `iss` to the authenticator of
 * that issuer, whose key set gives the key and whose checks and claim mappings (CEL
 * included) make the user; a token of no configured issuer is not this method's (pass).
 */
export class JwtStrategy extends JwtMethod<Routed> {
  readonly name = JWT_STRATEGY;
  private byIssuer = new Map<string, JwtAuthenticator>();

  /** `apiAudiences`: the API's own audiences (kube's audience-agnostic wrapper answers for them only). */
  constructor(private readonly apiAudiences: readonly string[] = []) {
    // The times are go-oidc's checks, with its messages, made on the verified claims.
    super({ algorithms: SUPPORTED_SIGNING_ALGS, times: false });
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

  protected routeOf(req: CredentialRequest, token: string): Routed | undefined {
    if (this.byIssuer.size === 0) return undefined;
    const iss = unverifiedClaims(token)?.iss;
    const authenticator = typeof iss === 'string' ? this.byIssuer.get(iss) : undefined;
    if (!authenticator) return undefined;
    // A TokenReview for other audiences: an ID token is meant for the API (kube's WrapAudienceAgnosticToken).
    let audiences: string[] | undefined;
    if (this.apiAudiences.length) {
      audiences = req.audiences ? req.audiences.filter((a) => this.apiAudiences.includes(a)) : [...this.apiAudiences];
      if (!audiences.length) return undefined;
    }
    return { authenticator, started: performance.now(), audiences };
  }

  protected key(route: Routed, token: string): Promise<KeyObject> {
    return route.authenticator.key(token);
  }

  protected verified(route: Routed, _req: CredentialRequest, claims: Record<string, unknown>): VerifiedToken {
    let verified: AuthenticatedToken;
    try {
      verified = route.authenticator.user(claims);
    } catch (err) {
      // A refusal is counted as the method fails with it.
      if (!(err instanceof TokenRejected)) route.authenticator.record('failure', route.started);
      throw err;
    }
    route.authenticator.record('success', route.started);
    return { user: verified.user, info: { audiences: route.audiences, notAfter: verified.expiresAt } };
  }

  protected rejection(route: Routed, challenge: unknown): string {
    route.authenticator.record('failure', route.started);
    return route.authenticator.rejection(challenge);
  }

  /** A bare token through this method alone: the user and the token's expiry, the refusal, or undefined when it is not this method's. */
  async verify(token: string): Promise<AuthenticatedToken | { rejected: string } | undefined> {
    const outcome = await this.verifyAlone(token);
    if (!outcome || 'rejected' in outcome) return outcome;
    return { user: outcome.user, expiresAt: outcome.info!.notAfter! };
  }
}
