import { COMPATIBLE_KUBE_VERSION } from './version.controller';
import { ResourceType } from '../../runtime/schema/resource-type';

/** The `info` of every OpenAPI document the server publishes (kube puts its release there). */
export const OPENAPI_INFO = {
  title: 'platform-authz-apiserver',
  version: `v${COMPATIBLE_KUBE_VERSION.major}.${COMPATIBLE_KUBE_VERSION.minor}.0`,
};

/** The domain our groups end in, as kube's end in `k8s.io`. */
const GROUP_DOMAIN = '.platform.io';

/**
 * The definition prefix of a group version's types: kube's reversed-domain Go package path
 * (`io.k8s.api.rbac.v1`), with `platform.io` for `k8s.io` and `core` for the core group.
 */
export function packageOf(group: string, version: string): string {
  return `io.platform.api.${(group || 'core').split('.')[0]}.${version}`;
}

/** Package of the apimachinery meta/v1 types (ObjectMeta, ListMeta, Status, DeleteOptions...). */
export const META_PACKAGE = 'io.platform.apimachinery.pkg.apis.meta.v1';

/** The schema name of a kind, e.g. `io.platform.api.rbac.v1.Role`. */
export function schemaName(type: Pick<ResourceType, 'group' | 'version' | 'kind'>): string {
  return `${packageOf(type.group, type.version)}.${type.kind}`;
}

/**
 * The group version as kube spells it in operation ids and tags: the group without its
 * domain in camel case plus the version (`rbacAuthorization` + `V1`, `core` + `V1`).
 */
export function operationGroup(group: string, version: string): { camel: string; tag: string } {
  const name = group.endsWith(GROUP_DOMAIN) ? group.slice(0, -GROUP_DOMAIN.length) : group || 'core';
  const words = name.split(/[.-]/).filter(Boolean);
  const camel = words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('');
  return { camel, tag: `${camel}_${version}` };
}
