/**
 * Equality and ordering of CEL values as the library represents them: int as bigint,
 * uint and duration as the library's classes (recognised by shape, so no realm or class
 * identity matters), double as number, timestamp as Date, bytes as Uint8Array.
 */

interface DurationLike {
  seconds: bigint;
  nanos: number;
}

const isDuration = (v: unknown): v is DurationLike =>
  typeof v === 'object' && v !== null && typeof (v as DurationLike).seconds === 'bigint' && typeof (v as DurationLike).nanos === 'number';

const isUnsigned = (v: unknown): v is { value: bigint } =>
  typeof v === 'object' && v !== null && !isDuration(v) && typeof (v as { value?: unknown }).value === 'bigint';

/** A number for the numeric kinds (int, uint, double), else undefined. */
function numeric(v: unknown): bigint | number | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (isUnsigned(v)) return v.value;
  return undefined;
}

function compareNumbers(a: bigint | number, b: bigint | number): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Orders two comparable CEL values (-1, 0, 1); throws for kinds that have no order. */
export function compareValues(a: unknown, b: unknown): number {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return compareNumbers(na, nb);
  if (typeof a === 'string' && typeof b === 'string') return Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Math.sign(Buffer.compare(a, b));
  if (isDuration(a) && isDuration(b)) return a.seconds !== b.seconds ? (a.seconds < b.seconds ? -1 : 1) : Math.sign(a.nanos - b.nanos);
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime());
  throw new Error(`no such overload: values of these types cannot be compared`);
}

function entries(v: unknown): Array<[unknown, unknown]> | undefined {
  if (v instanceof Map) return [...v.entries()];
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype) return Object.entries(v);
  return undefined;
}

/** CEL equality: numbers across int/uint/double, element-wise lists, key-wise maps. */
export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined || nb !== undefined) return na !== undefined && nb !== undefined && compareNumbers(na, nb) === 0;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => valuesEqual(x, b[i]));
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b) === 0;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (isDuration(a) && isDuration(b)) return a.seconds === b.seconds && a.nanos === b.nanos;
  const ea = entries(a);
  const eb = entries(b);
  if (ea && eb) {
    if (ea.length !== eb.length) return false;
    const other = new Map(eb);
    return ea.every(([k, v]) => other.has(k) && valuesEqual(v, other.get(k)));
  }
  if (typeof a === 'object' && a !== null && typeof (a as { equals?: unknown }).equals === 'function') {
    return (a as { equals(o: unknown): boolean }).equals(b);
  }
  return false;
}
