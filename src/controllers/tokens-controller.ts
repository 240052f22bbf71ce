import { Secret, secretType, SECRET_TYPE_SERVICE_ACCOUNT_TOKEN, SERVICE_ACCOUNT_NAME_ANNOTATION } from '../core/kinds/secret';
import { ServiceAccount, serviceAccountType } from '../core/kinds/service-account';
import { ServiceAccountTokens } from '../authentication/serviceaccount/service-account-tokens';
import { SERVICE_ACCOUNT_UID_ANNOTATION } from '../authentication/serviceaccount/service-account-token.strategy';
import { Controller, ControllerContext } from './controller-context';

export const TOKENS_CONTROLLER_USER = 'tokens-controller';

/**
 * kube's tokens controller, for the legacy token Secrets people still create by hand: a
 * Secret of type service-account-token naming an account (annotation
 * `platform.io/service-account.name`) gets `token` (a JWT of the legacy issuer, valid while
 * the Secret holds it), `ca.crt` and `namespace`, and the account's uid as annotation. A
 * Secret whose account is gone (or was replaced) is deleted, as kube does.
 */
export class TokensController implements Controller {
  readonly name = 'serviceaccount-token';
  readonly watches = [secretType, serviceAccountType];

  constructor(
    private readonly ctx: ControllerContext,
    private readonly tokens: ServiceAccountTokens,
    private readonly caCertPem: string,
  ) {}

  async sync(): Promise<void> {
    const secrets = (await this.ctx.list<Secret>(secretType)).filter((s) => s.type === SECRET_TYPE_SERVICE_ACCOUNT_TOKEN && !s.metadata.deletionTimestamp);
    if (!secrets.length) return;
    const accounts = new Map((await this.ctx.list<ServiceAccount>(serviceAccountType)).map((sa) => [`${sa.metadata.namespace}/${sa.metadata.name}`, sa]));
    for (const secret of secrets) {
      const namespace = secret.metadata.namespace!;
      const annotations = secret.metadata.annotations ?? {};
      const account = accounts.get(`${namespace}/${annotations[SERVICE_ACCOUNT_NAME_ANNOTATION]}`);
      const recordedUid = annotations[SERVICE_ACCOUNT_UID_ANNOTATION];
      if (!account || (recordedUid && recordedUid !== account.metadata.uid)) {
        await this.ctx.delete(secretType, secret);
        continue;
      }
      const data = secret.data ?? {};
      const ca = Buffer.from(this.caCertPem).toString('base64');
      const ns = Buffer.from(namespace).toString('base64');
      if (data.token && data['ca.crt'] === ca && data.namespace === ns && recordedUid) continue;
      const updated: Secret = structuredClone(secret);
      updated.metadata.annotations = { ...annotations, [SERVICE_ACCOUNT_UID_ANNOTATION]: account.metadata.uid! };
      updated.data = { ...data, 'ca.crt': ca, namespace: ns };
      if (!data.token) {
        const token = await this.tokens.issueLegacy(namespace, { name: account.metadata.name!, uid: account.metadata.uid! }, secret.metadata.name!);
        updated.data.token = Buffer.from(token).toString('base64');
      }
      await this.ctx.update(secretType, updated);
    }
  }
}
