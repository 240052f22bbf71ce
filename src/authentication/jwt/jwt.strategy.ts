import type { Request } from 'express';
import { AuthenticationStrategy, bearerToken, setCredentialNotAfter } from '../strategies';
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
    authenticator.authenticate(token).then(
      ({ user, expiresAt }) => {
        setCredentialNotAfter(req, expiresAt);
        this.success(user);
      },
      (err: Error) => (err instanceof TokenRejected ? this.fail(err.message, 401) : this.error(err)),
    );
  }
}
