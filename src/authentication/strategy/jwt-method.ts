import { constants, KeyObject, verify as verifySignature } from 'node:crypto';
import { Authenticator as Passport } from 'passport';
import { Strategy as PassportJwtStrategy, SecretOrKeyProvider, VerifiedCallback } from 'passport-jwt';
import { UserInfo } from '../../apimachinery/user-info';
import { AuthenticationInfo, CredentialRequest } from './authentication-strategy';
import { bearerToken } from './bearer-token';

/** A verified JWT's user, and what the method learned of the token (its expiry, the audiences granted). */
export interface VerifiedToken {
  user: UserInfo;
  info?: AuthenticationInfo;
}

/** A JWT of the method's that does not authenticate; the message is kube's. */
export class TokenRejected extends Error {}

type Claims = Record<string, unknown>;

/** jsonwebtoken's errors, as passport-jwt fails with them: TokenExpiredError, NotBeforeError, JsonWebTokenError. */
const VERIFIER_ERRORS = new Set(['TokenExpiredError', 'NotBeforeError', 'JsonWebTokenError']);

/** The error jsonwebtoken refused a token with (by its name: the library is passport-jwt's), if it is one. */
export function jwtVerifierError(challenge: unknown): { name: string; message: string } | undefined {
  return challenge instanceof Error && VERIFIER_ERRORS.has(challenge.name) ? challenge : undefined;
}

/** A compact JWS's header and claims, decoded without verifying them. */
export interface UnverifiedJwt {
  header: { alg?: unknown; kid?: unknown; crit?: unknown };
  claims: Claims;
}

function jsonObject(part: string): Claims | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Claims) : undefined;
  } catch {
    return undefined;
  }
}

/** The payload of a compact JWS without verifying it (to pick the method by `iss`); undefined if it is none. */
export function unverifiedClaims(token: string): Claims | undefined {
  const parts = token.split('.');
  return parts.length === 3 ? jsonObject(parts[1]) : undefined;
}

/** The header and payload of a compact JWS without verifying them; undefined if it is none. */
export function unverifiedJwt(token: string): UnverifiedJwt | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const header = jsonObject(parts[0]);
  const claims = header && jsonObject(parts[1]);
  return claims ? { header, claims } : undefined;
}

/** The digest each asymmetric JWS algorithm signs (RSASSA-PKCS1-v1_5, RSASSA-PSS, ECDSA). */
const DIGESTS: Record<string, string> = { RS256: 'sha256', RS384: 'sha384', RS512: 'sha512', PS256: 'sha256', PS384: 'sha384', PS512: 'sha512', ES256: 'sha256', ES384: 'sha384', ES512: 'sha512' };

/** Whether `key` made the token's signature (to pick among keys of one algorithm when the token names none of them). */
export function signedWith(token: string, alg: string, key: KeyObject): boolean {
  const digest = DIGESTS[alg];
  const end = token.lastIndexOf('.');
  if (!digest || end < 0) return false;
  const data = Buffer.from(token.slice(0, end), 'ascii');
  const signature = Buffer.from(token.slice(end + 1), 'base64url');
  const options = alg.startsWith('ES')
    ? { key, dsaEncoding: 'ieee-p1363' as const }
    : alg.startsWith('PS')
      ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }
      : key;
  try {
    return verifySignature(digest, data, options, signature);
  } catch {
    return false;
  }
}

/** RSA keys shorter than this verify nothing (as `jose` refuses them). */
export function tooShortRsaKey(alg: string, key: KeyObject): boolean {
  return (alg.startsWith('RS') || alg.startsWith('PS')) && (key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048;
}

export interface JwtMethodOptions {
  /** The algorithms jsonwebtoken accepts (the method checks its own list before giving a key). */
  algorithms: string[];
  /** Whether jsonwebtoken checks `exp` and `nbf` (with this leeway), or the method does in `verified`. */
  times: { leewaySeconds: number } | false;
}

/** What passport-jwt's strategy holds (its own fields are not in its typings). */
interface Running<Route> {
  route?: Route;
  fail(challenge: unknown, status?: number): void;
}

/**
 * A method whose credential is a JWT, verified by passport-jwt: the token is read where
 * every token method reads it (the union's bearer token), the key comes from the keys the
 * method holds (`key`, its key set or key files), and the verified claims become a user
 * (`verified`). A token that is not the method's (none, not a JWT, another issuer) passes;
 * a refusal is given kube's wording (`rejection`, jsonwebtoken's errors included) and 401.
 *
 * What `route` finds is kept for the rest of the request on the object passport runs the
 * request with (a fresh one inheriting from the method, per request).
 */
export abstract class JwtMethod<Route> extends PassportJwtStrategy {
  private route?: Route;

  constructor(options: JwtMethodOptions) {
    super(
      {
        jwtFromRequest: (req: CredentialRequest) => bearerToken(req) ?? null,
        // jsonwebtoken takes a KeyObject as it is (the typings know only PEM text and secrets).
        secretOrKeyProvider: provideKey as unknown as SecretOrKeyProvider,
        passReqToCallback: true,
        algorithms: options.algorithms as never,
        ignoreExpiration: !options.times,
        jsonWebTokenOptions: options.times ? { clockTolerance: options.times.leewaySeconds } : { ignoreNotBefore: true },
      },
      verifiedClaims,
    );
  }

  /** What the method knows of a token that is its own to verify; undefined when it is not (pass). */
  protected abstract routeOf(req: CredentialRequest, token: string): Route | undefined;

  /** The key the token's signature is verified with; TokenRejected when there is none for it. */
  protected abstract key(route: Route, token: string): KeyObject | Promise<KeyObject>;

  /** The user the verified claims stand for; TokenRejected when they do not authenticate. */
  protected abstract verified(route: Route, req: CredentialRequest, claims: Claims): VerifiedToken | Promise<VerifiedToken>;

  /** kube's reason for a refusal: the method's own (a string), or its wording of jsonwebtoken's error. */
  protected abstract rejection(route: Route, challenge: unknown): string;

  authenticate(req: CredentialRequest, options?: unknown): void {
    const token = bearerToken(req);
    const route = token === undefined ? undefined : this.routeOf(req, token);
    if (route === undefined) return this.pass();
    const running = this as unknown as Running<Route>;
    running.route = route;
    const fail = running.fail;
    running.fail = (challenge: unknown) => fail.call(this, this.rejection(route, challenge), 401);
    super.authenticate(req as never, options);
  }

  /** Runs the method alone through passport for a bare token (as a TokenReview would present it). */
  protected verifyAlone(token: string): Promise<VerifiedToken | { rejected: string } | undefined> {
    const req: CredentialRequest = { headers: {}, headersDistinct: {}, socket: {} as CredentialRequest['socket'], presentedToken: token };
    return new Promise((resolve, reject) => {
      const chain = alone.authenticate(Object.create(this) as this, { session: false }, (err: unknown, user: UserInfo | false, info: unknown) => {
        if (err) reject(err instanceof Error ? err : new Error(String(err)));
        else if (user) resolve({ user, info: info as AuthenticationInfo | undefined });
        else resolve({ rejected: typeof info === 'string' ? info : 'rejected' });
      }) as (req: CredentialRequest, res: unknown, next: (err?: unknown) => void) => void;
      // next(): the method passed (the token is not its own).
      chain(req, {}, (err?: unknown) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(undefined)));
    });
  }
}

/** The passport a method runs in alone (given the strategy itself, it asks no registry). */
const alone = new Passport();

function refusal(err: unknown, done: VerifiedCallback): void {
  if (err instanceof TokenRejected) done(null, false, err.message);
  else done(err instanceof Error ? err : new Error(String(err)));
}

/** passport-jwt's secretOrKeyProvider: the method's key for the token it routed. */
function provideKey(this: JwtMethod<unknown>, _req: CredentialRequest, token: string, done: (err: unknown, key?: KeyObject) => void): void {
  const method = this as unknown as { route: unknown; key(route: unknown, token: string): KeyObject | Promise<KeyObject> };
  let key: KeyObject | Promise<KeyObject>;
  try {
    key = method.key(method.route, token);
  } catch (err) {
    return done(err);
  }
  if (key instanceof Promise) key.then((k) => done(null, k), (err: unknown) => done(err));
  else done(null, key);
}

/** passport-jwt's verify callback: the method's user for the verified claims. */
function verifiedClaims(this: JwtMethod<unknown>, req: CredentialRequest, claims: Claims, done: VerifiedCallback): void {
  const method = this as unknown as { route: unknown; verified(route: unknown, req: CredentialRequest, claims: Claims): VerifiedToken | Promise<VerifiedToken> };
  let verified: VerifiedToken | Promise<VerifiedToken>;
  try {
    verified = method.verified(method.route, req, claims);
  } catch (err) {
    return refusal(err, done);
  }
  if (verified instanceof Promise) verified.then((v) => done(null, v.user, v.info), (err: unknown) => refusal(err, done));
  else done(null, verified.user, verified.info);
}
