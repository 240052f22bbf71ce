import { KubeObject } from '../../apimachinery/types';
import { ageOf } from './human-duration';
import { TableColumn } from './table';

/** Column descriptions are the field docs kube takes from ObjectMeta's OpenAPI. */
export const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
export const CREATION_TIMESTAMP_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** NAME: the object's name, format `name` so clients can build `kind/name` from it. */
export const nameColumn: TableColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: NAME_DESCRIPTION,
  cell: (obj) => obj.metadata.name ?? '',
};

/** Created At: the creation time as RFC 3339 (a `date` column clients render themselves). */
export const createdAtColumn: TableColumn = {
  name: 'Created At',
  type: 'date',
  description: CREATION_TIMESTAMP_DESCRIPTION,
  // A missing time prints as Go's zero time, as kube's printer does.
  cell: (obj) => obj.metadata.creationTimestamp ?? '0001-01-01T00:00:00Z',
};

/** AGE: how long ago the object was created, as kubectl shows it (`5m`, `3d2h`). */
export const ageColumn: TableColumn = {
  name: 'Age',
  type: 'string',
  description: CREATION_TIMESTAMP_DESCRIPTION,
  cell: (obj: KubeObject, now: Date) => ageOf(obj.metadata.creationTimestamp, now),
};

/** What kube's default table convertor prints for a kind without columns of its own. */
export const DEFAULT_COLUMNS: TableColumn[] = [nameColumn, createdAtColumn];

/** Printers count entries (Secret and ConfigMap data, a ServiceAccount's secrets) as integers. */
export function entryCount(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  return value !== null && typeof value === 'object' ? Object.keys(value).length : 0;
}
