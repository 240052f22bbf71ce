import { UserInfo } from '../authentication/user-info';
import { FieldError } from './field-errors';
import { StructSchema } from './schema/schema';
import { KubeObject } from './types';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export const ALL_STORAGE_VERBS: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** What a strategy hook knows about the request it serves. */
export interface StrategyContext {
  user: UserInfo;
  /** The namespace of the request path ('' for cluster-scoped kinds). */
  namespace: string;
  dryRun: boolean;
}

/**
 * Per-kind behaviour plugged into the generic resource handlers, in the order
 * kube's rest.BeforeCreate/BeforeUpdate runs them: prepare (may mutate), then
 * validate (must not mutate). Strategies are stateless singletons.
 */
export interface ResourceStrategy<T extends KubeObject = KubeObject> {
  /** A PUT to a missing object creates it (true for RBAC kinds, as in kube). */
  readonly allowCreateOnUpdate: boolean;
  /** A PUT without metadata.resourceVersion overwrites whatever is stored. */
  readonly allowUnconditionalUpdate: boolean;
  /** Clears fields the client may not set (e.g. status) and fills defaults. */
  prepareForCreate?(obj: T, ctx: StrategyContext): void;
  prepareForUpdate?(obj: T, old: T, ctx: StrategyContext): void;
  /** Kind-specific validation; ObjectMeta is validated by the generic layer. */
  validate(obj: T, ctx: StrategyContext): FieldError[];
  validateUpdate(obj: T, old: T, ctx: StrategyContext): FieldError[];
}

/** A name validator returns the reasons a name is bad (empty when it is fine). */
export type NameValidator = (name: string, prefix: boolean) => string[];

/** One kind served by the generic layer: its identity in discovery plus its strategy. */
export interface ResourceType<T extends KubeObject = KubeObject> {
  group: string; // '' = core
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames?: string[];
  categories?: string[];
  namespaced: boolean;
  /** The verbs served; the kind's storage must implement each (checked at registration). */
  verbs: Verb[];
  /** DELETE answers with the object (as kube does for namespaces) instead of a Status. */
  deleteReturnsObject?: boolean;
  /** Validates metadata.name; kube uses path-segment names for RBAC, DNS labels for namespaces. */
  nameValidator: NameValidator;
  /** The kind's fields with kube's merge markers: field validation, patch, apply and OpenAPI read it. */
  schema: StructSchema;
  strategy: ResourceStrategy<T>;
}

export function apiVersionOf(t: { group: string; version: string }): string {
  return t.group ? `${t.group}/${t.version}` : t.version;
}
