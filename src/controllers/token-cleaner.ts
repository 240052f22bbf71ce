import { BOOTSTRAP_TOKEN_NAMESPACE } from '../authentication/bootstrap-token/bootstrap-token.strategy';
import { bootstrapExpiration, SECRET_TYPE_BOOTSTRAP_TOKEN } from '../core/kinds/bootstrap-token';
import { Secret, secretType } from '../core/kinds/secret';
import { Controller, ControllerContext } from './controller-context';

export const TOKEN_CLEANER_USER = 'token-cleaner';

/**
 * kube's tokencleaner: deletes bootstrap token Secrets in kube-system once their
 * `expiration` has passed, and asks to run again when the next one expires.
 */
export class TokenCleaner implements Controller {
  readonly name = 'tokencleaner';
  readonly watches = [secretType];

  constructor(private readonly ctx: ControllerContext) {}

  async sync(): Promise<number | void> {
    const now = Date.now();
    let next: number | undefined;
    for (const secret of await this.ctx.list<Secret>(secretType, BOOTSTRAP_TOKEN_NAMESPACE)) {
      if (secret.type !== SECRET_TYPE_BOOTSTRAP_TOKEN || secret.metadata.deletionTimestamp) continue;
      const expiration = bootstrapExpiration(secret.data);
      if (expiration === undefined || Number.isNaN(expiration)) continue;
      if (expiration <= now) await this.ctx.delete(secretType, secret);
      else next = Math.min(next ?? expiration, expiration);
    }
    return next;
  }
}
