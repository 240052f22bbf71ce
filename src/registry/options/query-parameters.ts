import { errors } from '../../apimachinery/errors';
import { goQuote } from '../../apimachinery/go-text';

/**
 * The one decoder every query option goes through: kube's ParameterCodec, which fills an
 * options kind (ListOptions, GetOptions, CreateOptions, UpdateOptions, PatchOptions,
 * DeleteOptions) from url.Values through its generated conversions:
 *
 * - a parameter the kind does not declare is ignored;
 * - a repeated parameter counts by its first value (`?watch=1&watch=0` is a watch); a list
 *   field (`dryRun`) takes every value;
 * - a boolean is false when absent, `0`, or `false` in any letter case, and true for every
 *   other value, the empty one included (`?watch`, `?watch=`, `?watch=True`, `?watch=yes`);
 * - an integer is strconv.ParseInt(value, 10, 64): a sign and decimal digits, nothing else,
 *   within int64. Anything else, the empty value included, is a 400 BadRequest with Go's
 *   message, prefixed with the parameter's name (kube's message alone does not say which
 *   parameter was wrong).
 *
 * Fields are read in the kind's declaration order, so when several are bad the first one is
 * reported, as kube reports it.
 */
export type ParameterType = 'string' | 'strings' | 'bool' | 'optionalBool' | 'int64' | 'optionalInt64';

export type ParameterSchema = Readonly<Record<string, ParameterType>>;

type DecodedValue<T extends ParameterType> = T extends 'strings'
  ? string[]
  : T extends 'bool'
    ? boolean
    : T extends 'optionalBool'
      ? boolean | undefined
      : T extends 'int64' | 'optionalInt64'
        ? number | undefined
        : string | undefined;

/** The options a schema declares, each as its conversion leaves it; absent strings and pointers are undefined. */
export type DecodedParameters<S extends ParameterSchema> = { [K in keyof S]: DecodedValue<S[K]> };

/** kube's metav1.ListOptions (list, watch and deletecollection), in its field order. */
export const LIST_OPTIONS = {
  labelSelector: 'string',
  fieldSelector: 'string',
  watch: 'bool',
  allowWatchBookmarks: 'bool',
  resourceVersion: 'string',
  resourceVersionMatch: 'string',
  timeoutSeconds: 'optionalInt64',
  limit: 'int64',
  continue: 'string',
  sendInitialEvents: 'optionalBool',
} as const satisfies ParameterSchema;

/** kube's metav1.GetOptions. */
export const GET_OPTIONS = { resourceVersion: 'string' } as const satisfies ParameterSchema;

/** kube's metav1.CreateOptions. */
export const CREATE_OPTIONS = { dryRun: 'strings', fieldManager: 'string', fieldValidation: 'string' } as const satisfies ParameterSchema;

/** kube's metav1.UpdateOptions: the same fields as CreateOptions. */
export const UPDATE_OPTIONS = CREATE_OPTIONS;

/** kube's metav1.PatchOptions (`force` is a pointer: present at all matters). */
export const PATCH_OPTIONS = { dryRun: 'strings', force: 'optionalBool', fieldManager: 'string', fieldValidation: 'string' } as const satisfies ParameterSchema;

/** kube's metav1.DeleteOptions as a query carries them (preconditions only come in a body). */
export const DELETE_OPTIONS = {
  gracePeriodSeconds: 'optionalInt64',
  orphanDependents: 'optionalBool',
  propagationPolicy: 'string',
  dryRun: 'strings',
  ignoreStoreReadErrorWithClusterBreakingPotential: 'optionalBool',
} as const satisfies ParameterSchema;

export type Query = Record<string, unknown>;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Every value of a parameter, as url.Values holds them; none when absent. */
export function queryValues(query: Query, name: string): string[] {
  if (!Object.hasOwn(query, name)) return [];
  const v = query[name];
  if (v === undefined) return [];
  return Array.isArray(v) ? v.map(String) : [String(v)];
}

/** A parameter's first value (Go's url.Values.Get), or undefined when absent. */
export function firstQueryValue(query: Query, name: string): string | undefined {
  return queryValues(query, name)[0];
}

/** kube's Convert_Slice_string_To_bool: only `0` and `false` (any case) are false. */
export function queryBool(value: string): boolean {
  return !(value === '0' || value.toLowerCase() === 'false');
}

/** A parameter that cannot be converted: 400 BadRequest naming it, with Go's conversion error. */
export function badParameter(name: string, goError: string) {
  return errors.badRequest(`${name}: ${goError}`, { causes: [{ reason: 'FieldValueInvalid', message: goError, field: name }] });
}

/** strconv.ParseInt(text, 10, 64) with its two errors, as kube's conversion returns them. */
export function parseInt64(name: string, text: string): number {
  if (!/^[+-]?[0-9]+$/.test(text)) throw badParameter(name, `strconv.ParseInt: parsing ${goQuote(text)}: invalid syntax`);
  const n = BigInt(text);
  if (n < INT64_MIN || n > INT64_MAX) throw badParameter(name, `strconv.ParseInt: parsing ${goQuote(text)}: value out of range`);
  return Number(n);
}

function decodeOne(query: Query, name: string, type: ParameterType): unknown {
  const values = queryValues(query, name);
  if (type === 'strings') return values;
  if (values.length === 0) return type === 'bool' ? false : undefined;
  const first = values[0];
  switch (type) {
    case 'string':
      return first;
    case 'bool':
    case 'optionalBool':
      return queryBool(first);
    case 'int64':
    case 'optionalInt64':
      return parseInt64(name, first);
  }
}

/** Fills an options kind from the query as kube's ParameterCodec does; a bad value is 400. */
export function decodeQueryParameters<S extends ParameterSchema>(query: Query, schema: S): DecodedParameters<S> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(schema)) out[name] = decodeOne(query, name, schema[name]);
  return out as DecodedParameters<S>;
}
