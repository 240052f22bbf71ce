import type { Environment } from '@marcbachmann/cel-js';
import type { CelLibrary } from './cel-library';
import { chargeCost } from './cost';
import { compareValues, valuesEqual } from './values';

/** The library names duration and timestamp by their protobuf types. */
const DURATION = 'google.protobuf.Duration';
const TIMESTAMP = 'google.protobuf.Timestamp';
/** Element types with an order (kube's comparableTypes). */
const COMPARABLE = ['int', 'uint', 'double', 'bool', DURATION, TIMESTAMP, 'string', 'bytes'];
/** Element types `sum()` adds (kube's summableTypes). */
const SUMMABLE = ['int', 'uint', 'double', DURATION];

const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);

function extreme(name: 'min' | 'max', list: unknown[]): unknown {
  chargeCost(list.length);
  if (list.length === 0) throw new Error(`${name} called on empty list`);
  const prefer = name === 'min' ? -1 : 1;
  return list.reduce((best, next) => (compareValues(next, best) === prefer ? next : best));
}

/**
 * kube's list library: `isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`
 * (`<list<T>>.sum()` for int, uint, double and duration; an empty `min`/`max` is an error).
 */
export function registerListFunctions(env: Environment, lib: CelLibrary): void {
  for (const type of COMPARABLE) {
    env.registerFunction(`list<${type}>.isSorted(): bool`, (list: unknown[]) => {
      chargeCost(list.length);
      return list.every((value, i) => i === 0 || compareValues(list[i - 1], value) <= 0);
    });
    env.registerFunction(`list<${type}>.min(): ${type}`, (list: unknown[]) => extreme('min', list));
    env.registerFunction(`list<${type}>.max(): ${type}`, (list: unknown[]) => extreme('max', list));
  }
  const adders: Record<string, (list: never[]) => unknown> = {
    int: (list: bigint[]) => {
      const total = list.reduce((a, b) => a + b, 0n);
      if (total > MAX_INT64 || total < MIN_INT64) throw new Error('integer overflow');
      return total;
    },
    uint: (list: Array<{ value: bigint }>) => new lib.UnsignedInt(list.reduce((a, b) => a + b.value, 0n)),
    double: (list: number[]) => list.reduce((a, b) => a + b, 0),
    [DURATION]: (list: Array<InstanceType<CelLibrary['Duration']>>) => list.reduce((a, b) => a.addDuration(b), new lib.Duration(0, 0)),
  };
  for (const type of SUMMABLE) {
    env.registerFunction(`list<${type}>.sum(): ${type}`, (list: never[]) => {
      chargeCost(list.length);
      return adders[type](list);
    });
  }
  env.registerFunction('list<A>.indexOf(A): int', (list: unknown[], item: unknown) => {
    chargeCost(list.length);
    return BigInt(list.findIndex((value) => valuesEqual(value, item)));
  });
  env.registerFunction('list<A>.lastIndexOf(A): int', (list: unknown[], item: unknown) => {
    chargeCost(list.length);
    for (let i = list.length - 1; i >= 0; i--) if (valuesEqual(list[i], item)) return BigInt(i);
    return -1n;
  });
}
