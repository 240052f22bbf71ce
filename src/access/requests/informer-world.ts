import { KubeObject } from '../../apimachinery/types';
import { storageResource } from '../../apimachinery/store-key';
import { RBAC_GROUP } from '../../apis/rbac/types';
import { Informer } from '../../storage/informer/informer';
import { SharedInformerFactory } from '../../storage/informer/shared-informer-factory';
import { accessRequestPolicyType } from './access-request-kinds';
import { AccessRequestPolicy } from './access-request-types';
import { PolicyWorld } from './policy-matching';

/** The policies, namespaces and roles that matching reads, from the one shared informer of each. */
export class InformerWorld implements PolicyWorld {
  readonly informers: Informer[];
  private readonly policyInformer: Informer<AccessRequestPolicy>;
  private readonly namespaces: Informer;
  private readonly roles: Informer;
  private readonly clusterRoles: Informer;

  constructor(factory: SharedInformerFactory) {
    this.policyInformer = factory.informerFor<AccessRequestPolicy>(storageResource(accessRequestPolicyType));
    this.namespaces = factory.informerFor(storageResource({ group: '', plural: 'namespaces' }));
    this.roles = factory.informerFor(storageResource({ group: RBAC_GROUP, plural: 'roles' }));
    this.clusterRoles = factory.informerFor(storageResource({ group: RBAC_GROUP, plural: 'clusterroles' }));
    this.informers = [this.policyInformer, this.namespaces, this.roles, this.clusterRoles] as Informer[];
  }

  policies(): AccessRequestPolicy[] {
    return this.policyInformer.list();
  }

  namespaceLabels(name: string): Record<string, string> | undefined {
    const namespace = this.namespaces.get('', name);
    return namespace ? (namespace.metadata.labels ?? {}) : undefined;
  }

  role(kind: string, namespace: string, name: string): KubeObject | undefined {
    return kind === 'ClusterRole' ? this.clusterRoles.get('', name) : kind === 'Role' ? this.roles.get(namespace, name) : undefined;
  }

  /** Started, and caught up with `revision` (false when one did not within the timeout). */
  async syncedTo(revision: string, timeoutMs: number): Promise<boolean> {
    await Promise.all(this.informers.map((i) => i.start()));
    return (await Promise.all(this.informers.map((i) => i.waitForRevision(revision, timeoutMs)))).every(Boolean);
  }
}
