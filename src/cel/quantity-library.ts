import type { Environment } from '@marcbachmann/cel-js';
import { Quantity, QuantityParseError } from '../apimachinery/quantity';

export const QUANTITY_TYPE = 'kubernetes.Quantity';

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/**
 * kube's quantity library: `quantity(string)`, `isQuantity(string)`, and on a quantity
 * `sign()`, `isInteger()`, `asInteger()` (an error when it has a fraction or overflows),
 * `asApproximateFloat()`, `add`/`sub` (quantity or int), `isLessThan`, `isGreaterThan`,
 * `compareTo` (-1, 0, 1); two quantities are equal when their values are.
 */
export function registerQuantityFunctions(env: Environment): void {
  const Q = QUANTITY_TYPE;
  env.registerType(Q, Quantity as unknown as new () => Quantity);
  env.registerFunction(`quantity(string): ${Q}`, (text: string) => {
    try {
      return Quantity.parse(text);
    } catch (err) {
      if (err instanceof QuantityParseError) throw new Error(err.message);
      throw err;
    }
  });
  env.registerFunction('isQuantity(string): bool', (text: string) => Quantity.isValid(text));
  env.registerFunction(`sign(${Q}): int`, (q: Quantity) => q.sign());
  env.registerFunction(`${Q}.sign(): int`, (q: Quantity) => q.sign());
  env.registerFunction(`${Q}.isInteger(): bool`, (q: Quantity) => q.isInteger());
  env.registerFunction(`${Q}.asInteger(): int`, (q: Quantity) => {
    const value = q.asInteger();
    if (value === undefined) throw new Error('cannot convert value to integer');
    return value;
  });
  env.registerFunction(`${Q}.asApproximateFloat(): double`, (q: Quantity) => q.asApproximateFloat());
  env.registerFunction(`${Q}.add(${Q}): ${Q}`, (q: Quantity, other: Quantity) => q.add(other));
  env.registerFunction(`${Q}.add(int): ${Q}`, (q: Quantity, n: bigint) => q.add(Quantity.fromInteger(checkedInt(n))));
  env.registerFunction(`${Q}.sub(${Q}): ${Q}`, (q: Quantity, other: Quantity) => q.sub(other));
  env.registerFunction(`${Q}.sub(int): ${Q}`, (q: Quantity, n: bigint) => q.sub(Quantity.fromInteger(checkedInt(n))));
  env.registerFunction(`${Q}.isLessThan(${Q}): bool`, (q: Quantity, other: Quantity) => q.compareTo(other) < 0n);
  env.registerFunction(`${Q}.isGreaterThan(${Q}): bool`, (q: Quantity, other: Quantity) => q.compareTo(other) > 0n);
  env.registerFunction(`${Q}.compareTo(${Q}): int`, (q: Quantity, other: Quantity) => q.compareTo(other));
  // `!=` follows from `==`.
  env.registerOperator(`${Q} == ${Q}`, (a: Quantity, b: Quantity) => a.equals(b));
}

function checkedInt(n: bigint): bigint {
  if (n > INT64_MAX || n < INT64_MIN) throw new Error('integer overflow');
  return n;
}
