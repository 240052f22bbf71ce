/**
 * Which node labels a kubelet may set on its own Node (kube's NodeRestriction label
 * policy, with kube's `kubernetes.io` / `k8s.io` label domains written as this project's
 * `platform.io`): never labels under `node-restriction.platform.io`, and of the
 * `platform.io` labels only the ones kubelets set themselves.
 */

export const LABEL_NAMESPACE_NODE_RESTRICTION = 'node-restriction.platform.io';
/** kube's `kubernetes.io` and `k8s.io`. */
const KUBERNETES_LABEL_DOMAINS = ['platform.io'];

/** Labels a kubelet sets on its node (k8s.io/kubelet's kubeletLabels). */
const KUBELET_LABELS = new Set([
  'platform.io/hostname',
  'topology.platform.io/zone',
  'topology.platform.io/region',
  'failure-domain.beta.platform.io/zone',
  'failure-domain.beta.platform.io/region',
  'beta.platform.io/instance-type',
  'node.platform.io/instance-type',
  'platform.io/os',
  'platform.io/arch',
  'beta.platform.io/os',
  'beta.platform.io/arch',
]);

/** Label namespaces (and their subdomains) kubelets own. */
const KUBELET_LABEL_NAMESPACES = ['kubelet.platform.io', 'node.platform.io'];

function labelNamespace(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

function inDomain(namespace: string, domain: string): boolean {
  return namespace === domain || namespace.endsWith(`.${domain}`);
}

function isKubernetesLabel(key: string): boolean {
  return KUBERNETES_LABEL_DOMAINS.some((domain) => inDomain(labelNamespace(key), domain));
}

function isKubeletLabel(key: string): boolean {
  return KUBELET_LABELS.has(key) || KUBELET_LABEL_NAMESPACES.some((ns) => inDomain(labelNamespace(key), ns));
}

/** Keys added, removed or changed between two label maps. */
export function modifiedLabels(next: Record<string, string> | undefined, prev: Record<string, string> | undefined): string[] {
  const a = next ?? {};
  const b = prev ?? {};
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => !(k in a) || !(k in b) || a[k] !== b[k]);
}

/** The modified labels a node may not touch, sorted as kube lists them. */
export function forbiddenNodeLabels(modified: string[]): string[] {
  return modified
    .filter((key) => inDomain(labelNamespace(key), LABEL_NAMESPACE_NODE_RESTRICTION) || (isKubernetesLabel(key) && !isKubeletLabel(key)))
    .sort();
}
