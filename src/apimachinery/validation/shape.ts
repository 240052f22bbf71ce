import { isPlainObject } from '../types';

/**
 * Readers for values a validator looks at. JSON types are checked once, when a body is
 * decoded into its kind (schema-decoder.ts); these readers only turn absent values into
 * Go's zero values, so validators never meet undefined.
 */

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
