import { errors } from '../../apimachinery/errors';
import { isPlainObject, KubeList, KubeObject, ListMeta } from '../../apimachinery/types';

/**
 * Server-side printing (`Accept: application/json;as=Table;g=meta.platform.io;v=v1`): a
 * kind's columns turn objects and lists into kube's meta Table.
 */

export type ColumnType = 'string' | 'integer' | 'number' | 'boolean' | 'date';

/** One column of a kind's table: its header as kube describes it and how a cell is computed. */
export interface TableColumn<T extends KubeObject = KubeObject> {
  name: string;
  type: ColumnType;
  /** `name` for the object's name column; free text otherwise ('' when none). */
  format?: string;
  description: string;
  /** 0 = shown by default, 1 = only with `-o wide`. */
  priority?: number;
  cell(obj: T, now: Date): string | number | boolean;
}

/** kube's TableRowCondition: a state of the row's object clients may render specially (a finished pod). */
export interface TableRowCondition {
  type: 'Completed';
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
}

/** A kind's table: its columns in order, and the conditions of a row when the kind has any. */
export interface TableDefinition<T extends KubeObject = KubeObject> {
  columns: TableColumn<T>[];
  rowConditions?(obj: T): TableRowCondition[];
}

export type IncludeObject = 'None' | 'Object' | 'Metadata';

export interface TableColumnDefinition {
  name: string;
  type: ColumnType;
  format: string;
  description: string;
  priority: number;
}

export interface TableRow {
  cells: Array<string | number | boolean>;
  conditions?: TableRowCondition[];
  object?: Record<string, unknown> | null;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: ListMeta;
  /** null on the watch events after the first, which carry rows only (kube's NoHeaders). */
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}

/** `includeObject` as kube validates it: empty means Metadata; anything else is a 400. */
export function parseIncludeObject(query: Record<string, unknown>): IncludeObject {
  const raw = query.includeObject;
  const value = String((Array.isArray(raw) ? raw[0] : raw) ?? '');
  if (value === '') return 'Metadata';
  if (value === 'None' || value === 'Object' || value === 'Metadata') return value;
  throw errors.badRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(value)}: must be 'Metadata', 'Object', 'None', or empty`,
  );
}

/** How rows carry their objects and what TypeMeta list items get back. */
export interface TableOptions {
  /** apiVersion of the Table and of the PartialObjectMetadata in rows (`meta.platform.io/v1`). */
  apiVersion: string;
  includeObject: IncludeObject;
  /** The kind's apiVersion and kind, for objects of a list (which carry no TypeMeta). */
  objectApiVersion: string;
  objectKind: string;
  /** False for watch events after the first. */
  headers: boolean;
  now: Date;
}

function isList(body: KubeObject | KubeList): body is KubeList {
  return Array.isArray((body as KubeList).items);
}

/** The object in its own rendering: metadata only (default), the whole object, or nothing. */
function rowObject(obj: KubeObject, opts: TableOptions): Record<string, unknown> | null {
  switch (opts.includeObject) {
    case 'None':
      return null;
    case 'Object': {
      // List items carry no TypeMeta; a row's object always does.
      const { apiVersion: _apiVersion, kind: _kind, ...rest } = obj;
      return { apiVersion: opts.objectApiVersion, kind: opts.objectKind, ...rest };
    }
    default:
      return partialObjectMetadata(obj, opts.apiVersion);
  }
}

/** kube's meta.AsPartialObjectMetadata: the object reduced to its metadata. */
export function partialObjectMetadata(obj: KubeObject, apiVersion: string): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: isPlainObject(obj.metadata) ? obj.metadata : {} };
}

function columnDefinition(column: TableColumn): TableColumnDefinition {
  return {
    name: column.name,
    type: column.type,
    format: column.format ?? '',
    description: column.description,
    priority: column.priority ?? 0,
  };
}

/** An object (one row) or a list (a row per item, the list's metadata) as a Table. */
export function toTable(body: KubeObject | KubeList, definition: TableDefinition, opts: TableOptions): Table {
  const objects = isList(body) ? body.items : [body];
  const metadata: ListMeta = {};
  if (isList(body)) {
    if (body.metadata.resourceVersion) metadata.resourceVersion = body.metadata.resourceVersion;
    if (body.metadata.continue) metadata.continue = body.metadata.continue;
    if (body.metadata.remainingItemCount !== undefined) metadata.remainingItemCount = body.metadata.remainingItemCount;
  } else if (body.metadata?.resourceVersion) {
    metadata.resourceVersion = body.metadata.resourceVersion;
  }
  return {
    kind: 'Table',
    apiVersion: opts.apiVersion,
    metadata,
    columnDefinitions: opts.headers ? definition.columns.map(columnDefinition) : null,
    rows: objects.map((obj) => row(obj, definition, opts)),
  };
}

function row(obj: KubeObject, definition: TableDefinition, opts: TableOptions): TableRow {
  const cells = definition.columns.map((column) => column.cell(obj, opts.now));
  const conditions = definition.rowConditions?.(obj);
  // kube omits empty conditions; they sit between cells and object.
  if (conditions?.length) return { cells, conditions, object: rowObject(obj, opts) };
  return { cells, object: rowObject(obj, opts) };
}
