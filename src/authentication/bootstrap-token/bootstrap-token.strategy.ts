import { timingSafeEqual } from 'node:crypto';
import { UserInfo } from '../../apimachinery/user-info';
import { AuthenticationStrategy, CredentialRequest } from '../strategy/authentication-strategy';
import { bearerToken } from '../strategy/bearer-token';
import {
  BOOTSTRAP_TOKEN_EXTRA_GROUPS_KEY,
  BOOTSTRAP_TOKEN_ID_KEY,
  BOOTSTRAP_TOKEN_PATTERN,
  BOOTSTRAP_TOKEN_SECRET_KEY,
  BOOTSTRAP_TOKEN_SECRET_PREFIX,
  BOOTSTRAP_TOKEN_USAGE_AUTHENTICATION,
  BOOTSTRAPPERS_GROUP,
  bootstrapExpiration,
  bootstrapExtraGroups,
  SECRET_TYPE_BOOTSTRAP_TOKEN,
  secretString,
} from '../../core/kinds/bootstrap-token';
import { Secret, secretType } from '../../core/kinds/secret';
import { ObjectLookup } from '../serviceaccount/object-lookup';

/** Bootstrap token Secrets live here. */
export const BOOTSTRAP_TOKEN_NAMESPACE = 'kube-system';
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';

/**
 * Bootstrap tokens (--enable-bootstrap-token-auth, kube's bootstrap token authenticator):
 * `<id>.<secret>` whose Secret `bootstrap-token-<id>` in kube-system is of the bootstrap
 * type, allows authentication, has not expired and holds the same secret (compared in
 * constant time). Other bearer tokens are not this method's.
 */
export class BootstrapTokenStrategy extends AuthenticationStrategy {
  readonly name = 'bootstrap-token';

  constructor(private readonly objects: ObjectLookup) {
    super();
  }

  authenticate(req: CredentialRequest): void {
    const token = bearerToken(req);
    const match = token === undefined ? null : BOOTSTRAP_TOKEN_PATTERN.exec(token);
    if (!match) return this.pass();
    this.check(match[1], match[2]).then(
      (outcome) => (typeof outcome === 'string' ? this.fail(outcome, 401) : this.success(outcome)),
      (err: Error) => this.error(err),
    );
  }

  private async check(id: string, secretValue: string): Promise<UserInfo | string> {
    const secret = (await this.objects.get(secretType, BOOTSTRAP_TOKEN_NAMESPACE, `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${id}`)) as Secret | undefined;
    if (!secret || secret.metadata.deletionTimestamp || secret.type !== SECRET_TYPE_BOOTSTRAP_TOKEN) return 'bootstrap token not found';
    const held = Buffer.from(secretString(secret.data, BOOTSTRAP_TOKEN_SECRET_KEY), 'utf8');
    const presented = Buffer.from(secretValue, 'utf8');
    if (held.length !== presented.length || !timingSafeEqual(held, presented)) return 'bootstrap token does not match';
    if (secretString(secret.data, BOOTSTRAP_TOKEN_ID_KEY) !== id) return 'bootstrap token id does not match';
    const expiration = bootstrapExpiration(secret.data);
    if (expiration !== undefined && (Number.isNaN(expiration) || expiration <= Date.now())) return 'bootstrap token has expired';
    if (secretString(secret.data, BOOTSTRAP_TOKEN_USAGE_AUTHENTICATION) !== 'true') return 'bootstrap token is not for authentication';
    const extra = bootstrapExtraGroups(secretString(secret.data, BOOTSTRAP_TOKEN_EXTRA_GROUPS_KEY));
    if (extra.invalid !== undefined) return 'bootstrap token has an invalid extra group';
    // kube returns the groups as a sorted set.
    return { username: `${BOOTSTRAP_USER_PREFIX}${id}`, groups: [...new Set([BOOTSTRAPPERS_GROUP, ...extra.groups])].sort() };
  }
}
