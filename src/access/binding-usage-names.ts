import { createHash } from 'node:crypto';
import { GrantingBinding } from '../authorization/authorizer';

/** A DNS label's longest form (RFC 1123). */
const MAX_LABEL = 63;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const KIND_PREFIX: Record<GrantingBinding['kind'], string> = { ClusterRoleBinding: 'clusterrolebinding', RoleBinding: 'rolebinding' };

/**
 * The name of a binding's BindingUsage: a DNS subdomain, the same on every replica and for
 * every list, never the same for two bindings. `clusterrolebinding.<name>` and
 * `rolebinding.<namespace>.<name>` when the binding's name is a DNS label (a namespace
 * always is); otherwise the name is made one (lower case, other characters `-`, cut to
 * length) and a last label `h<hash>` of kind, namespace and name keeps it apart: a name
 * kept as is is one label, so it never ends in such a hash label.
 */
export function bindingUsageName(kind: GrantingBinding['kind'], namespace: string, name: string): string {
  const prefix = kind === 'RoleBinding' ? `${KIND_PREFIX[kind]}.${namespace}` : KIND_PREFIX[kind];
  if (name.length <= MAX_LABEL && DNS_LABEL.test(name)) return `${prefix}.${name}`;
  const label =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .slice(0, MAX_LABEL)
      .replace(/^-+|-+$/g, '') || 'x';
  const hash = createHash('sha256').update(`${kind}\0${namespace}\0${name}`).digest('hex').slice(0, 10);
  return `${prefix}.${label}.h${hash}`;
}
