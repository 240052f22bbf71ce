/**
 * resource.Quantity syntax as apimachinery parses it: an optionally signed decimal number
 * followed by a binary (Ki..Ei), decimal SI (n, u, m, "", k, M..E) or exponent (e3, E-2)
 * suffix. Only what validation needs: whether a value parses and its sign. JSON numbers are
 * quantities too (kube accepts an unquoted number).
 */

export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";

const NUMBER = /^([+-]?)(\d*)(?:\.(\d*))?/;
const SUFFIXES = new Set(['', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei']);
const EXPONENT = /^[eE][+-]?\d+$/;

export interface ParsedQuantity {
  /** -1, 0 or 1. */
  sign: number;
}

export class QuantityError extends Error {}

/** Parses a quantity or throws a QuantityError with apimachinery's message. */
export function parseQuantity(value: unknown): ParsedQuantity {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new QuantityError(QUANTITY_FORMAT_ERROR);
    return { sign: Math.sign(value) };
  }
  if (typeof value !== 'string' || value.length === 0) throw new QuantityError(QUANTITY_FORMAT_ERROR);
  const m = NUMBER.exec(value)!;
  const [number, signText, whole, fraction = ''] = m;
  if (!whole && !fraction) throw new QuantityError(QUANTITY_FORMAT_ERROR);
  const suffix = value.slice(number.length);
  if (!SUFFIXES.has(suffix) && !EXPONENT.test(suffix)) {
    // apimachinery checks the shape first, then whether it knows the suffix.
    if (!/^[eEinumkKMGTP]*[-+]?[0-9]*$/.test(suffix)) throw new QuantityError(QUANTITY_FORMAT_ERROR);
    throw new QuantityError(QUANTITY_SUFFIX_ERROR);
  }
  const isZero = /^0*$/.test(whole) && /^0*$/.test(fraction);
  return { sign: isZero ? 0 : signText === '-' ? -1 : 1 };
}

/** The message of a bad quantity, or undefined when it parses. */
export function quantityError(value: unknown): string | undefined {
  try {
    parseQuantity(value);
    return undefined;
  } catch (err) {
    if (err instanceof QuantityError) return err.message;
    throw err;
  }
}
