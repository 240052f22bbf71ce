import { Quantity, QuantityParseError } from '../../apimachinery/quantity';

/**
 * Quantities in core kinds' fields (`requests`, `capacity`, ...): parsed by the one
 * resource.Quantity parser (src/apimachinery/quantity.ts), with apimachinery's messages.
 * JSON numbers are quantities too (kube accepts an unquoted number).
 */

export interface ParsedQuantity {
  /** -1, 0 or 1. */
  sign: number;
}

export class QuantityError extends Error {}

/** Parses a quantity or throws a QuantityError with apimachinery's message. */
export function parseQuantity(value: unknown): ParsedQuantity {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string') return parseQuantity('');
  try {
    return { sign: Number(Quantity.parse(text).sign()) };
  } catch (err) {
    if (err instanceof QuantityParseError) throw new QuantityError(err.message);
    throw err;
  }
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
