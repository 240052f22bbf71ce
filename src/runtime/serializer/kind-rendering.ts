import type { ResourceType } from '../schema/resource-type';
import { DEFAULT_COLUMNS } from '../table/columns';
import { TableDefinition } from '../table/table';
import { RenderCapabilities } from './negotiation';
import { META_MESSAGES } from './protobuf/protobuf-codec';

/** What a kind can be rendered as, from its definition. */
export function renderCapabilitiesOf(type: Pick<ResourceType, 'protobuf' | 'table'>): RenderCapabilities {
  return { protobuf: type.protobuf !== undefined, table: type.table !== 'none' };
}

/** The kind's columns, or kube's default (Name, Created At) when it defines none. */
export function tableDefinitionOf(type: ResourceType): TableDefinition {
  if (type.table === 'none') throw new Error(`${type.kind} has no table`);
  return type.table ?? { columns: DEFAULT_COLUMNS };
}

/**
 * The protobuf message of a body the kind's endpoints answer with: the kind, its list, or
 * one of the meta kinds (Status, PartialObjectMetadata[List]).
 */
export function protobufMessageFor(type: ResourceType | undefined, kind: string): string {
  if (type?.protobuf && kind === type.kind) return type.protobuf.message;
  if (type?.protobuf?.listMessage && kind === type.listKind) return type.protobuf.listMessage;
  const meta = META_MESSAGES[kind as keyof typeof META_MESSAGES];
  if (meta) return meta;
  throw new Error(`no protobuf message for kind ${kind}`);
}
