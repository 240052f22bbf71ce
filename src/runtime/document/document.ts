import { isPlainObject, setOwn } from '../../apimachinery/types';
import { goQuote } from '../../apimachinery/go-text';

/**
 * A decoded JSON or YAML document as written, before any schema is applied: object keys
 * in order and duplicates kept (so field validation can report them the way kube's strict
 * decoder does), numbers with their literal text (so `1.0` into an integer field fails as
 * it does in Go).
 */
export type DocNode =
  | { kind: 'object'; entries: DocEntry[] }
  | { kind: 'array'; items: DocNode[] }
  | { kind: 'string'; value: string }
  | { kind: 'number'; raw: string; value: number }
  | { kind: 'bool'; value: boolean }
  | { kind: 'null' };

export interface DocEntry {
  key: string;
  value: DocNode;
}

/** The plain value of a document; a repeated key keeps its last value (Go's interface{} decoding). */
export function docToValue(node: DocNode): unknown {
  switch (node.kind) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const { key, value } of node.entries) setOwn(out, key, docToValue(value));
      return out;
    }
    case 'array':
      return node.items.map(docToValue);
    case 'null':
      return null;
    default:
      return node.value;
  }
}

/** A document for a plain value (one that has no duplicate keys to report). */
export function valueToDoc(value: unknown): DocNode {
  if (value === null || value === undefined) return { kind: 'null' };
  if (Array.isArray(value)) return { kind: 'array', items: value.map(valueToDoc) };
  if (isPlainObject(value)) return { kind: 'object', entries: Object.entries(value).map(([key, v]) => ({ key, value: valueToDoc(v) })) };
  if (typeof value === 'string') return { kind: 'string', value };
  if (typeof value === 'number') return { kind: 'number', raw: JSON.stringify(value), value };
  if (typeof value === 'boolean') return { kind: 'bool', value };
  return { kind: 'string', value: String(value) };
}

/**
 * The literal of the first number too large for a float64 (`1e400`), which Go's decoder
 * refuses when it decodes into interface{}: `json: cannot unmarshal number 1e400 into Go
 * value of type float64`.
 */
export function overflowingNumber(node: DocNode): string | undefined {
  const pending: DocNode[] = [node];
  while (pending.length) {
    const n = pending.pop()!;
    if (n.kind === 'number' && !Number.isFinite(n.value)) return n.raw;
    if (n.kind === 'array') for (let i = n.items.length - 1; i >= 0; i--) pending.push(n.items[i]);
    if (n.kind === 'object') for (let i = n.entries.length - 1; i >= 0; i--) pending.push(n.entries[i].value);
  }
  return undefined;
}

export function float64OverflowError(literal: string): string {
  return `json: cannot unmarshal number ${literal} into Go value of type float64`;
}

/** The JSON type name Go's decoder reports for a value (`cannot unmarshal string into ...`). */
export function docTypeName(node: DocNode): string {
  switch (node.kind) {
    case 'object':
      return 'object';
    case 'array':
      return 'array';
    case 'bool':
      return 'bool';
    default:
      return node.kind;
  }
}

/**
 * Every key that repeats within one object, at any depth, as kube's strict decoder of a
 * map[string]interface{} reports them: `duplicate field "metadata.labels.a"`.
 */
export function duplicateFields(node: DocNode, path = ''): string[] {
  const found: string[] = [];
  const walk = (n: DocNode, at: string) => {
    if (n.kind === 'array') n.items.forEach((item, i) => walk(item, `${at}[${i}]`));
    if (n.kind !== 'object') return;
    const seen = new Set<string>();
    for (const { key, value } of n.entries) {
      const child = at ? `${at}.${key}` : key;
      if (seen.has(key)) found.push(strictFieldError('duplicate', child));
      seen.add(key);
      walk(value, child);
    }
  };
  walk(node, path);
  return found;
}

/** kube's strict decoding error for one field: `unknown field "spec.x"`, `duplicate field "a"`. */
export function strictFieldError(kind: 'unknown' | 'duplicate', path: string): string {
  return `${kind} field ${goQuote(path)}`;
}
