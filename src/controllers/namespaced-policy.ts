import { ANONYMOUS_USER, CONTROLLER_ROLE_PREFIX } from '../apimachinery/user-info';
import { KubeObject } from '../apimachinery/types';
import { roleBindingType, roleType } from '../rbac/kinds/kinds';
import { RBAC_GROUP } from '../apis/rbac/types';
import { BOOTSTRAP_TOKEN_NAMESPACE } from '../authentication/bootstrap-token/bootstrap-token.strategy';
import { BOOTSTRAP_SIGNER_USER, CLUSTER_INFO_NAME, CLUSTER_INFO_NAMESPACE } from './bootstrap-signer';
import { namespaceType } from '../core/namespace';
import { Controller, ControllerContext } from './controller-context';
import { TOKEN_CLEANER_USER } from './token-cleaner';

/** The Role that lets anyone read cluster-info (kubeadm's bootstrap-signer-clusterinfo, translated). */
export const CLUSTER_INFO_READER_ROLE = 'system:bootstrap-signer-clusterinfo';

const API_VERSION = `${RBAC_GROUP}/v1`;

function role(namespace: string, name: string, rules: Array<Record<string, unknown>>): KubeObject {
  return { apiVersion: API_VERSION, kind: 'Role', metadata: { name, namespace, labels: { 'platform.io/bootstrapping': 'rbac-defaults' } }, rules } as KubeObject;
}

function binding(namespace: string, name: string, subject: { kind: string; name: string }): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'RoleBinding',
    metadata: { name, namespace, labels: { 'platform.io/bootstrapping': 'rbac-defaults' } },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name },
    subjects: [{ ...subject, apiGroup: RBAC_GROUP }],
  } as KubeObject;
}

/**
 * kube's namespaced bootstrap policy for the bootstrap-token controllers (kube-system:
 * token-cleaner and bootstrap-signer read or delete token Secrets; kube-public:
 * bootstrap-signer updates cluster-info), and the public read of cluster-info. Our
 * controllers act as users `system:controller:<name>`, so they are bound as users. Each
 * object is created when missing and otherwise left to its owner.
 */
export function namespacedDefaultPolicy(): Array<{ kind: 'Role' | 'RoleBinding'; object: KubeObject }> {
  const signer = `${CONTROLLER_ROLE_PREFIX}${BOOTSTRAP_SIGNER_USER}`;
  const cleaner = `${CONTROLLER_ROLE_PREFIX}${TOKEN_CLEANER_USER}`;
  const roles = [
    role(BOOTSTRAP_TOKEN_NAMESPACE, signer, [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] }]),
    role(BOOTSTRAP_TOKEN_NAMESPACE, cleaner, [{ apiGroups: [''], resources: ['secrets'], verbs: ['delete', 'get', 'list', 'watch'] }]),
    role(CLUSTER_INFO_NAMESPACE, signer, [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['configmaps'], resourceNames: [CLUSTER_INFO_NAME], verbs: ['update'] },
    ]),
    role(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_READER_ROLE, [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [CLUSTER_INFO_NAME], verbs: ['get'] }]),
  ];
  const bindings = [
    binding(BOOTSTRAP_TOKEN_NAMESPACE, signer, { kind: 'User', name: signer }),
    binding(BOOTSTRAP_TOKEN_NAMESPACE, cleaner, { kind: 'User', name: cleaner }),
    binding(CLUSTER_INFO_NAMESPACE, signer, { kind: 'User', name: signer }),
    binding(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_READER_ROLE, { kind: 'User', name: ANONYMOUS_USER }),
  ];
  return [...roles.map((object) => ({ kind: 'Role' as const, object })), ...bindings.map((object) => ({ kind: 'RoleBinding' as const, object }))];
}

/** Creates the namespaced default policy once (retried at later syncs until it has). */
export class NamespacedPolicyBootstrap implements Controller {
  readonly name = 'namespaced-default-policy';
  /** kube-system and kube-public appearing is what lets it finish. */
  readonly watches = [namespaceType];
  private done = false;

  constructor(private readonly ctx: ControllerContext) {}

  async sync(): Promise<void> {
    if (this.done) return;
    for (const { kind, object } of namespacedDefaultPolicy()) {
      await this.ctx.create(kind === 'Role' ? roleType : roleBindingType, object.metadata.namespace!, object);
    }
    this.done = true;
  }
}
