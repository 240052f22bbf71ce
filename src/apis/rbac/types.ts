import { KubeObject } from '../../apimachinery/types';
import { LabelSelector } from '../../apimachinery/validation/labels';

/** The RBAC kinds of rbac.authorization.platform.io/v1, as JSON bodies carry them. */

export const RBAC_GROUP = 'rbac.authorization.platform.io';
export const RBAC_VERSION = 'v1';

export const USER_KIND = 'User';
export const GROUP_KIND = 'Group';
export const SERVICE_ACCOUNT_KIND = 'ServiceAccount';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Role extends KubeObject {
  rules?: PolicyRule[] | null;
}

export interface AggregationRule {
  clusterRoleSelectors?: LabelSelector[] | null;
}

export interface ClusterRole extends KubeObject {
  rules?: PolicyRule[] | null;
  aggregationRule?: AggregationRule | null;
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface RoleBinding extends KubeObject {
  roleRef: RoleRef;
  subjects?: Subject[] | null;
}

export type ClusterRoleBinding = RoleBinding;
