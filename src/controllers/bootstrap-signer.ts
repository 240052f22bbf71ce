import { BOOTSTRAP_TOKEN_NAMESPACE } from '../authentication/bootstrap-token/bootstrap-token.strategy';
import {
  BOOTSTRAP_TOKEN_ID_KEY,
  BOOTSTRAP_TOKEN_SECRET_KEY,
  BOOTSTRAP_TOKEN_USAGE_SIGNING,
  bootstrapExpiration,
  SECRET_TYPE_BOOTSTRAP_TOKEN,
  secretString,
} from '../core/kinds/bootstrap-token';
import { ConfigMap, configMapType } from '../core/kinds/config-map';
import { Secret, secretType } from '../core/kinds/secret';
import { loadJose } from '../authentication/serviceaccount/jose';
import { Controller, ControllerContext } from './controller-context';

export const BOOTSTRAP_SIGNER_USER = 'bootstrap-signer';
export const CLUSTER_INFO_NAMESPACE = 'kube-public';
export const CLUSTER_INFO_NAME = 'cluster-info';
export const KUBECONFIG_KEY = 'kubeconfig';
export const JWS_KEY_PREFIX = 'jws-kubeconfig-';

/**
 * kube's detached JWS of `content`: HS256 keyed with the whole token `<id>.<secret>`, the
 * token id as `kid`, the payload left out (`header..signature`).
 */
export async function detachedSignature(content: string, tokenId: string, tokenSecret: string): Promise<string> {
  const jose = await loadJose();
  const jws = await new jose.CompactSign(Buffer.from(content, 'utf8'))
    .setProtectedHeader({ alg: 'HS256', kid: tokenId })
    .sign(Buffer.from(`${tokenId}.${tokenSecret}`, 'utf8'));
  const [header, , signature] = jws.split('.');
  return `${header}..${signature}`;
}

/**
 * kube's bootstrapsigner: ConfigMap `cluster-info` in kube-public carries, for every
 * bootstrap token that may sign (`usage-bootstrap-signing: "true"`, not expired), a
 * `jws-kubeconfig-<id>` entry signing its `kubeconfig`; entries of tokens that are gone are
 * removed. Without the ConfigMap there is nothing to do.
 */
export class BootstrapSigner implements Controller {
  readonly name = 'bootstrapsigner';
  readonly watches = [configMapType, secretType];

  constructor(private readonly ctx: ControllerContext) {}

  async sync(): Promise<number | void> {
    const configMap = (await this.ctx.list<ConfigMap>(configMapType, CLUSTER_INFO_NAMESPACE)).find((cm) => cm.metadata.name === CLUSTER_INFO_NAME);
    if (!configMap || configMap.metadata.deletionTimestamp) return;
    const content = configMap.data?.[KUBECONFIG_KEY];
    const desired = new Map<string, string>();
    const now = Date.now();
    let next: number | undefined;
    if (typeof content === 'string') {
      for (const secret of await this.ctx.list<Secret>(secretType, BOOTSTRAP_TOKEN_NAMESPACE)) {
        if (secret.type !== SECRET_TYPE_BOOTSTRAP_TOKEN || secret.metadata.deletionTimestamp) continue;
        if (secretString(secret.data, BOOTSTRAP_TOKEN_USAGE_SIGNING) !== 'true') continue;
        const expiration = bootstrapExpiration(secret.data);
        if (expiration !== undefined && (Number.isNaN(expiration) || expiration <= now)) continue;
        if (expiration !== undefined) next = Math.min(next ?? expiration, expiration);
        const id = secretString(secret.data, BOOTSTRAP_TOKEN_ID_KEY);
        const tokenSecret = secretString(secret.data, BOOTSTRAP_TOKEN_SECRET_KEY);
        if (!id || !tokenSecret) continue;
        desired.set(`${JWS_KEY_PREFIX}${id}`, await detachedSignature(content, id, tokenSecret));
      }
    }
    const data = { ...(configMap.data ?? {}) };
    let changed = false;
    for (const key of Object.keys(data)) {
      if (key.startsWith(JWS_KEY_PREFIX) && !desired.has(key)) {
        delete data[key];
        changed = true;
      }
    }
    for (const [key, value] of desired) {
      if (data[key] !== value) {
        data[key] = value;
        changed = true;
      }
    }
    if (changed) await this.ctx.update(configMapType, { ...configMap, data });
    return next;
  }
}
