import type { Request } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { KubeObject } from '../../apimachinery/types';
import { AuthenticationStrategy, requestedAudiences, setAuthenticatedAudiences, setCredentialNotAfter } from '../strategy/authentication-strategy';
import { bearerToken } from '../strategy/bearer-token';
import { nodeType } from '../../core/kinds/node';
import { podType } from '../../core/kinds/pod';
import { Secret, secretType, SECRET_TYPE_SERVICE_ACCOUNT_TOKEN, SERVICE_ACCOUNT_NAME_ANNOTATION } from '../../core/kinds/secret';
import { serviceAccountType } from '../../core/kinds/service-account';
import { ObjectLookup } from './object-lookup';
import { ServiceAccountTokens } from './service-account-tokens';
import { ObjectRef, ServiceAccountClaims, serviceAccountUser } from './token-claims';

export const SERVICE_ACCOUNT_UID_ANNOTATION = 'platform.io/service-account.uid';

/** kube lets a token outlive the deletion of what it is bound to by this much (graceful pod deletion). */
const DELETION_GRACE_MS = 60_000;

/**
 * Service-account tokens (kube's JWT token authenticator with its validators): a JWT from
 * one of the accepted issuers, signed by one of the keys, meant for the API's audiences
 * (or a TokenReview's). With --service-account-lookup the account, and the object a bound
 * token is bound to, must still exist with the uid in the token; a legacy token must still
 * be held by its Secret.
 */
export class ServiceAccountTokenStrategy extends AuthenticationStrategy {
  readonly name = 'service-account-token';

  constructor(
    private readonly tokens: ServiceAccountTokens,
    private readonly objects: ObjectLookup,
  ) {
    super();
  }

  authenticate(req: Request): void {
    const token = bearerToken(req);
    if (token === undefined) return this.pass();
    this.check(req, token).then(
      (outcome) => {
        if (outcome === 'pass') this.pass();
        else if (typeof outcome === 'string') this.fail(outcome, 401);
        else this.success(outcome);
      },
      (err: Error) => this.error(err),
    );
  }

  private async check(req: Request, token: string) {
    const audiences = requestedAudiences(req) ?? this.tokens.settings.apiAudiences;
    const verdict = await this.tokens.verify(token, audiences);
    if (verdict.kind === 'pass') return 'pass' as const;
    if (verdict.kind === 'fail') return verdict.reason;
    const { claims } = verdict;
    if (this.tokens.settings.lookup || claims.legacySecret) {
      const problem = claims.legacySecret ? await this.checkLegacy(claims, token) : await this.checkBound(claims);
      if (problem) return problem;
    }
    setAuthenticatedAudiences(req, claims.legacySecret ? [...audiences] : this.grantedAudiences(token, audiences));
    if (claims.expiresAt !== undefined) setCredentialNotAfter(req, claims.expiresAt * 1000);
    return serviceAccountUser(claims);
  }

  /** The requested audiences the token names (kube's intersection). */
  private grantedAudiences(token: string, audiences: readonly string[]): string[] {
    const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as { aud?: string | string[] };
    const tokenAudiences = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
    return audiences.filter((a) => tokenAudiences.includes(a));
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

/** Why an object a token names no longer vouches for it: gone, replaced (another uid), or deleted a while ago. */
function refProblem(what: string, object: KubeObject | undefined, ref: ObjectRef): string | undefined {
  if (!object) return `${what} has been deleted`;
  if (ref.uid && object.metadata.uid !== ref.uid) return `${what} UID does not match claim`;
  const deleted = object.metadata.deletionTimestamp ? Date.parse(object.metadata.deletionTimestamp) : NaN;
  if (!Number.isNaN(deleted) && deleted < Date.now() - DELETION_GRACE_MS) return `${what} is being deleted`;
  return undefined;
}
