import { UserInfo } from '../../apimachinery/user-info';
import { AuthenticationStrategy, CredentialRequest } from '../strategy/authentication-strategy';
import { bearerToken } from '../strategy/bearer-token';

/** `Authorization: Bearer <token>` looked up in the --token-auth-file table. */
export class TokenFileStrategy extends AuthenticationStrategy {
  readonly name = 'token-file';

  constructor(private readonly tokens: Map<string, UserInfo>) {
    super();
  }

  authenticate(req: CredentialRequest): void {
    const token = bearerToken(req);
    if (token === undefined) return this.pass();
    const user = this.tokens.get(token);
    if (!user) return this.fail('invalid bearer token', 401);
    this.success({ ...user, groups: [...user.groups] });
  }
}

