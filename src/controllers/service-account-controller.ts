import { KubeObject } from '../apimachinery/types';
import { serviceAccountType } from '../core/kinds/service-account';
import { namespaceType } from '../core/namespace';
import { Controller, ControllerContext } from './controller-context';

export const SERVICE_ACCOUNT_CONTROLLER_USER = 'service-account-controller';
const DEFAULT_SERVICE_ACCOUNT = 'default';

/**
 * kube's serviceaccount controller: every active namespace has a ServiceAccount named
 * `default`; one that is deleted is created again.
 */
export class ServiceAccountController implements Controller {
  readonly name = 'serviceaccount';
  readonly watches = [namespaceType, serviceAccountType];

  constructor(private readonly ctx: ControllerContext) {}

  async sync(): Promise<void> {
    const namespaces = await this.ctx.list<KubeObject & { status?: { phase?: string } }>(namespaceType);
    const accounts = new Set(
      (await this.ctx.list(serviceAccountType)).filter((sa) => sa.metadata.name === DEFAULT_SERVICE_ACCOUNT).map((sa) => sa.metadata.namespace),
    );
    for (const ns of namespaces) {
      const name = ns.metadata.name!;
      if (ns.metadata.deletionTimestamp || ns.status?.phase === 'Terminating' || accounts.has(name)) continue;
      await this.ctx.create(serviceAccountType, name, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace: name } });
    }
  }
}
