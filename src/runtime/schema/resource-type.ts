import { UserInfo } from '../../apimachinery/user-info';
import { FieldError } from '../../apimachinery/field-errors';
import { StructSchema } from './schema';
import type { TableDefinition } from '../table/table';
import { KubeObject } from '../../apimachinery/types';
import type { NameValidator } from '../../apimachinery/validation/object-meta';

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

/**
 * A field a list, watch or deletecollection can select by, besides metadata.name and
 * metadata.namespace (kube's per-kind field label set, e.g. a pod's spec.nodeName).
 */
export interface SelectableField<T extends KubeObject = KubeObject> {
  name: string;
  /** The field's value as a selector compares it (kube formats booleans as true/false). */
  value(obj: T): string;
}

/**
 * The messages of a kind and its list, named by full proto name, e.g.
 * `platform.io.api.rbac.v1.Role`; they live in proto/<package path>/ next to the others.
 * Kinds that cannot be listed (the create-only reviews) have no list message.
 */
export interface ProtobufMessages {
  message: string;
  listMessage?: string;
}

/** A name validator returns the reasons a name is bad (empty when it is fine). */

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
  /** Fields `fieldSelector` accepts beyond metadata.name and metadata.namespace. */
  selectableFields?: SelectableField<T>[];
  /**
   * Server-side printing (`as=Table`): the kind's columns. Unset = kube's default table
   * (Name, Created At); 'none' = the kind has no Table (kube's create-only reviews).
   */
  table?: TableDefinition<T> | 'none';
  /** The kind's protobuf messages (full names from proto/); unset = JSON and YAML only. */
  protobuf?: ProtobufMessages;
  /**
   * false: reads go to the store, not the watch cache (kube's `--watch-cache-sizes=<resource>#0`),
   * for a kind that grows with time and is read rarely, so it never sits whole in memory.
   */
  watchCache?: false;
}

/**
 * What decoding, patching and apply read of a kind: its identity and its schema. Plain data,
 * so it crosses to the codec threads (src/runtime/offload) as it is.
 */
export type SchemaKind = Pick<ResourceType, 'group' | 'version' | 'kind' | 'schema'>;

/** The SchemaKind of a kind (without its functions, which cannot cross to a thread). */
export function schemaKindOf(t: SchemaKind): SchemaKind {
  return { group: t.group, version: t.version, kind: t.kind, schema: t.schema };
}

export function apiVersionOf(t: { group: string; version: string }): string {
  return t.group ? `${t.group}/${t.version}` : t.version;
}
