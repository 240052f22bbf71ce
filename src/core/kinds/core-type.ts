import { ALL_STORAGE_VERBS, ResourceStrategy, ResourceType, SelectableField } from '../../runtime/schema/resource-type';
import { NameValidator } from '../../apimachinery/validation/object-meta';
import { StructSchema } from '../../runtime/schema/schema';
import { TableDefinition } from '../../runtime/table/table';
import { KubeObject } from '../../apimachinery/types';

export interface CoreKindDefinition<T extends KubeObject> {
  kind: string;
  plural: string;
  shortNames?: string[];
  categories?: string[];
  namespaced: boolean;
  nameValidator: NameValidator;
  schema: StructSchema;
  strategy: ResourceStrategy<T>;
  selectableFields?: SelectableField<T>[];
  /** kube's printer columns for the kind (server-side `as=Table`). */
  table: TableDefinition<T>;
}

/** The proto package of the core kinds' messages (proto/platform.io/api/core/v1/). */
export const CORE_PROTO_PACKAGE = 'platform.io.api.core.v1';

/**
 * A core group (`/api/v1`) kind as kube serves it: all eight storage verbs, lower-case
 * singular, and protobuf as well as JSON and YAML (kubectl's typed clients send protobuf
 * for core kinds), with the messages named after the kind.
 */
export function coreType<T extends KubeObject>(def: CoreKindDefinition<T>): ResourceType<T> {
  return {
    group: '',
    version: 'v1',
    kind: def.kind,
    listKind: `${def.kind}List`,
    plural: def.plural,
    singular: def.kind.toLowerCase(),
    shortNames: def.shortNames ?? [],
    ...(def.categories ? { categories: def.categories } : {}),
    namespaced: def.namespaced,
    verbs: [...ALL_STORAGE_VERBS],
    nameValidator: def.nameValidator,
    schema: def.schema,
    strategy: def.strategy,
    ...(def.selectableFields ? { selectableFields: def.selectableFields } : {}),
    table: def.table,
    protobuf: { message: `${CORE_PROTO_PACKAGE}.${def.kind}`, listMessage: `${CORE_PROTO_PACKAGE}.${def.kind}List` },
  };
}
