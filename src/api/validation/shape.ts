import { FieldError, fieldErrors, FieldPath } from '../field-errors';
import { isPlainObject } from '../types';

/**
 * JSON type checks for request bodies. kube decodes a body into typed Go structs before
 * any validation runs; we validate plain JSON, so each validator first checks that the
 * fields it reads have the right JSON types and reports a mismatch the way kube reports
 * schema type errors (`x: Invalid value: "string": x in body must be of type array: "string"`).
 * null and absent are always accepted: Go decodes both to the zero value.
 */
export type Shape =
  | 'string'
  | 'boolean'
  | 'integer'
  | 'any'
  | { array: Shape }
  | { object: Record<string, Shape> }
  | { map: Shape };

export function jsonTypeOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function typeError(value: unknown, expected: string, path: FieldPath): FieldError {
  const actual = jsonTypeOf(value);
  return fieldErrors.typeInvalid(path, actual, `${path} in body must be of type ${expected}: "${actual}"`);
}

/** Every type mismatch in value against shape; unknown object fields are ignored. */
export function checkShape(value: unknown, shape: Shape, path: FieldPath): FieldError[] {
  if (value === null || value === undefined || shape === 'any') return [];
  if (shape === 'string') return typeof value === 'string' ? [] : [typeError(value, 'string', path)];
  if (shape === 'boolean') return typeof value === 'boolean' ? [] : [typeError(value, 'boolean', path)];
  if (shape === 'integer') return Number.isInteger(value) ? [] : [typeError(value, 'integer', path)];
  if ('array' in shape) {
    if (!Array.isArray(value)) return [typeError(value, 'array', path)];
    return value.flatMap((item, i) => checkShape(item, shape.array, path.index(i)));
  }
  if (!isPlainObject(value)) return [typeError(value, 'object', path)];
  if ('map' in shape) return Object.entries(value).flatMap(([k, v]) => checkShape(v, shape.map, path.key(k)));
  return Object.entries(shape.object).flatMap(([k, s]) => checkShape(value[k], s, path.child(k)));
}

// Readers for values that passed checkShape: absent and null read as Go's zero values.

export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function strList(value: unknown): string[] {
  return Array.isArray(value) ? value.map(str) : [];
}

export function list<T>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : [];
}

export function record<T = unknown>(value: unknown): Record<string, T> {
  return isPlainObject(value) ? (value as Record<string, T>) : {};
}

export function strRecord(value: unknown): Record<string, string> {
  return Object.fromEntries(Object.entries(record(value)).map(([k, v]) => [k, str(v)]));
}
