import { KeyObject, timingSafeEqual } from 'node:crypto';
import { KubeObject } from '../../apimachinery/types';
import { CredentialRequest } from '../strategy/authentication-strategy';
import { JwtMethod, jwtVerifierError, TokenRejected, UnverifiedJwt, VerifiedToken } from '../strategy/jwt-method';
import { nodeType } from '../../core/kinds/node';
import { podType } from '../../core/kinds/pod';
import { Secret, secretType, SECRET_TYPE_SERVICE_ACCOUNT_TOKEN, SERVICE_ACCOUNT_NAME_ANNOTATION } from '../../core/kinds/secret';
import { serviceAccountType } from '../../core/kinds/service-account';
import { ObjectLookup } from './object-lookup';
import { CLOCK_LEEWAY_SECONDS, SERVICE_ACCOUNT_ALGORITHMS, ServiceAccountTokens } from './service-account-tokens';
import { ObjectRef, ServiceAccountClaims, serviceAccountUser } from './token-claims';

export const SERVICE_ACCOUNT_UID_ANNOTATION = 'platform.io/service-account.uid';

/** kube lets a token outlive the deletion of what it is bound to by this much (graceful pod deletion). */
const DELETION_GRACE_MS = 60_000;

/** A token of ours as the method routed it: the token, its header and claims (not yet verified). */
interface OurToken extends UnverifiedJwt {
  token: string;
}

/**
 * Service-account tokens (kube's JWT token authenticator with its validators), verified by
 * passport-jwt: a JWT from one of the accepted issuers, signed by one of the keys, meant for
 * the API's audiences (or a TokenReview's). With --service-account-lookup the account, and
 * the object a bound token is bound to, must still exist with the uid in the token; a legacy
 * token must still be held by its Secret.
 */
export class ServiceAccountTokenStrategy extends JwtMethod<OurToken> {
  readonly name = 'service-account-token';

  constructor(
    private readonly tokens: ServiceAccountTokens,
    private readonly objects: ObjectLookup,
  ) {
    super({ algorithms: [...SERVICE_ACCOUNT_ALGORITHMS], times: { leewaySeconds: CLOCK_LEEWAY_SECONDS } });
  }

  protected routeOf(_req: CredentialRequest, token: string): OurToken | undefined {
    const jwt = this.tokens.ours(token);
    return jwt && { token, ...jwt };
  }

  protected key(route: OurToken): KeyObject {
    return this.tokens.verificationKey(route.header, route.token);
  }

  protected rejection(_route: OurToken, challenge: unknown): string {
    return serviceAccountRejection(challenge);
  }

  protected async verified(route: OurToken, req: CredentialRequest, payload: Record<string, unknown>): Promise<VerifiedToken> {
    const audiences = req.audiences ?? this.tokens.settings.apiAudiences;
    const claims = this.tokens.claims(payload, audiences);
    if (this.tokens.settings.lookup || claims.legacySecret) {
      const problem = claims.legacySecret ? await this.checkLegacy(claims, route.token) : await this.checkBound(claims);
      if (problem) throw new TokenRejected(problem);
    }
    const granted = claims.legacySecret ? [...audiences] : grantedAudiences(payload, audiences);
    const notAfter = claims.expiresAt === undefined ? undefined : claims.expiresAt * 1000;
    return { user: serviceAccountUser(claims), info: { audiences: granted, notAfter } };
  }

  private async get(type: { group: string; plural: string; namespaced: boolean }, namespace: string, name: string): Promise<KubeObject | undefined> {
    return this.objects.get(type, namespace, name);
  }

  private async checkBound(claims: ServiceAccountClaims): Promise<string | undefined> {
    const account = await this.get(serviceAccountType, claims.namespace, claims.serviceAccount.name);
    const accountProblem = refProblem('service account', account, claims.serviceAccount);
    if (accountProblem) return accountProblem;
    if (claims.pod) return refProblem('pod', await this.get(podType, claims.namespace, claims.pod.name), claims.pod);
    if (claims.secret) return refProblem('secret', await this.get(secretType, claims.namespace, claims.secret.name), claims.secret);
    if (claims.node) return refProblem('node', await this.get(nodeType, '', claims.node.name), claims.node);
    return undefined;
  }

  /** kube's legacy validator: the Secret still holds this very token, and its account still exists. */
  private async checkLegacy(claims: ServiceAccountClaims, token: string): Promise<string | undefined> {
    const secret = (await this.get(secretType, claims.namespace, claims.legacySecret!)) as Secret | undefined;
    if (!secret || secret.metadata.deletionTimestamp) return 'token has been invalidated';
    if (secret.type !== SECRET_TYPE_SERVICE_ACCOUNT_TOKEN || secret.metadata.annotations?.[SERVICE_ACCOUNT_NAME_ANNOTATION] !== claims.serviceAccount.name) {
      return 'token has been invalidated';
    }
    const held = Buffer.from(secret.data?.token ?? '', 'base64');
    const presented = Buffer.from(token, 'utf8');
    if (held.length !== presented.length || !timingSafeEqual(held, presented)) return 'token does not match';
    const account = await this.get(serviceAccountType, claims.namespace, claims.serviceAccount.name);
    return refProblem('service account', account, claims.serviceAccount);
  }
}

/** The requested audiences the token names (kube's intersection). */
function grantedAudiences(payload: Record<string, unknown>, audiences: readonly string[]): string[] {
  const tokenAudiences = typeof payload.aud === 'string' ? [payload.aud] : Array.isArray(payload.aud) ? payload.aud : [];
  return audiences.filter((a) => tokenAudiences.includes(a));
}

/** kube's reasons for jsonwebtoken's refusals of a token of ours. */
function serviceAccountRejection(challenge: unknown): string {
  if (typeof challenge === 'string') return challenge;
  if (challenge instanceof TokenRejected) return challenge.message;
  const err = jwtVerifierError(challenge);
  if (err?.name === 'TokenExpiredError') return 'service account token has expired';
  if (err?.name === 'NotBeforeError') return 'service account token is not valid yet';
  if (err?.message === 'invalid signature') return 'invalid signature';
  // A time claim that is no number fails its validation as one that is not due.
  if (err?.message === 'invalid nbf value' || err?.message === 'invalid exp value') return 'service account token is not valid yet';
  return 'invalid token';
}

/** Why an object a token names no longer vouches for it: gone, replaced (another uid), or deleted a while ago. */
function refProblem(what: string, object: KubeObject | undefined, ref: ObjectRef): string | undefined {
  if (!object) return `${what} has been deleted`;
  if (ref.uid && object.metadata.uid !== ref.uid) return `${what} UID does not match claim`;
  const deleted = object.metadata.deletionTimestamp ? Date.parse(object.metadata.deletionTimestamp) : NaN;
  if (!Number.isNaN(deleted) && deleted < Date.now() - DELETION_GRACE_MS) return `${what} is being deleted`;
  return undefined;
}
