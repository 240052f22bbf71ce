import { ManagedFieldsEntry } from '../apimachinery/types';
import { Schema } from '../runtime/schema/schema';
import { isPlainObject } from '../apimachinery/types';

/**
 * What a review body's managed fields depend on: which fields it sets (struct fields and
 * granular map keys), the values of set lists and the keys of map lists — never the values
 * of scalars or of atomic parts. Two bodies of one shape get the same `fieldsV1`.
 */
export function fieldShape(value: unknown, schema: Schema | undefined): string {
  if (value === null) return 'n';
  if (schema === undefined) return '?';
  switch (schema.kind) {
    case 'struct':
    case 'map': {
      if (!isPlainObject(value) || schema.mapType === 'atomic') return '*';
      // Keys in the body's order: another order is another (equally valid) memo entry.
      // (Own keys as Object.keys lists them, without making the list.)
      let shape = '{';
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        const field = schema.kind === 'struct' && Object.hasOwn(schema.fields, key);
        const child = schema.kind === 'map' ? schema.values : field ? schema.fields[key] : undefined;
        // A field's name is one of the schema's (no quote or colon in it); any other key is quoted.
        shape += `${field ? key : JSON.stringify(key)}:${fieldShape(value[key], child)},`;
      }
      return `${shape}}`;
    }
    case 'list': {
      if (!Array.isArray(value) || schema.listType === 'atomic') return '*';
      if (schema.listType === 'set') return JSON.stringify(value);
      let shape = '[';
      for (const item of value) {
        const keys = (schema.mapKeys ?? []).map((k) => (isPlainObject(item) ? item[k] : undefined));
        shape += `${JSON.stringify(keys)}${fieldShape(item, schema.items)},`;
      }
      return `${shape}]`;
    }
    default:
      return '*';
  }
}

/** Bounded so odd clients cannot grow it: reviews come in few shapes. */
const MAX_SHAPES = 512;

/**
 * Managed fields of review bodies, computed once per (manager, shape): a review is a fresh
 * object every time, so its managedFields are a function of the body's shape, the manager
 * and the current second. Hot path of every access review.
 */
export class ReviewManagedFields {
  private readonly known = new Map<string, ManagedFieldsEntry[]>();

  constructor(private readonly schema: Schema) {}

  /** The body's managedFields at `time`, from `compute` the first time a shape is seen. */
  of(body: Record<string, unknown>, manager: string, time: string, compute: () => ManagedFieldsEntry[] | undefined): ManagedFieldsEntry[] | undefined {
    const key = `${manager}\u0000${fieldShape(body, this.schema)}`;
    let entries = this.known.get(key);
    if (entries === undefined) {
      entries = compute() ?? [];
      if (this.known.size >= MAX_SHAPES) this.known.clear();
      this.known.set(key, entries);
    }
    if (entries.length === 0) return undefined;
    return entries.map((e) => (e.time === undefined ? { ...e } : { ...e, time }));
  }
}
