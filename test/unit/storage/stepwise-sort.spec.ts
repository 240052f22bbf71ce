import { sortInSteps } from '../../../src/storage/informer/stepwise-sort';

function finish<T>(steps: Generator<void, T[], undefined>): { sorted: T[]; steps: number } {
  let count = 0;
  for (;;) {
    const next = steps.next();
    count++;
    if (next.done) return { sorted: next.value, steps: count };
  }
}

describe('sortInSteps', () => {
  const byValue = (a: number, b: number) => a - b;

  it.each([0, 1, 7, 8, 9, 63, 64, 65, 1000])('sorts %i items as Array.prototype.sort does', (n) => {
    const items = Array.from({ length: n }, (_, i) => (i * 7919) % 1009);
    const { sorted } = finish(sortInSteps(items, byValue, 8));
    expect(sorted).toEqual([...items].sort(byValue));
  });

  it('is stable', () => {
    const items = Array.from({ length: 100 }, (_, i) => ({ key: i % 3, at: i }));
    const { sorted } = finish(sortInSteps(items, (a, b) => a.key - b.key, 4));
    expect(sorted).toEqual([...items].sort((a, b) => a.key - b.key));
  });

  it('leaves its input as it was', () => {
    const items = [3, 1, 2];
    finish(sortInSteps(items, byValue, 2));
    expect(items).toEqual([3, 1, 2]);
  });

  it('does about `step` items of work per step', () => {
    const n = 4096;
    const step = 64;
    const items = Array.from({ length: n }, (_, i) => n - i);
    const { steps } = finish(sortInSteps(items, byValue, step));
    // Sorting runs of `step`, then log2(n / step) merge passes of n items each.
    const expected = n / step + (n / step) * Math.log2(n / step);
    expect(steps).toBeGreaterThanOrEqual(expected * 0.9);
    expect(steps).toBeLessThanOrEqual(expected * 1.1 + 2);
  });
});
