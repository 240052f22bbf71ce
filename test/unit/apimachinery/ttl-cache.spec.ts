import { TtlCache } from '../../../src/apimachinery/ttl-cache';

describe('TtlCache', () => {
  let now = 1_000_000;
  const clock = { now: () => now };
  beforeEach(() => (now = 1_000_000));

  it('answers an entry until its time to live has passed, and forgets it from then on', () => {
    const cache = new TtlCache<string>(10, clock);
    cache.set('k', 'v', 1000);
    now += 999;
    expect(cache.get('k')).toBe('v');
    now += 1;
    expect(cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('gives each entry its own time to live, and a new set its own', () => {
    const cache = new TtlCache<string>(10, clock);
    cache.set('short', 'a', 100);
    cache.set('long', 'b', 10_000);
    now += 500;
    expect([cache.get('short'), cache.get('long')]).toEqual([undefined, 'b']);
    cache.set('long', 'c', 100);
    now += 100;
    expect(cache.get('long')).toBeUndefined();
  });

  it('stores nothing for a time to live of zero or less (caching off)', () => {
    const cache = new TtlCache<string>(10, clock);
    cache.set('zero', 'v', 0);
    cache.set('negative', 'v', -5);
    expect([cache.get('zero'), cache.get('negative'), cache.size]).toEqual([undefined, undefined, 0]);
  });

  it('drops the least recently used entry when full', () => {
    const cache = new TtlCache<number>(2, clock);
    cache.set('a', 1, 1000);
    cache.set('b', 2, 1000);
    expect(cache.get('a')).toBe(1); // a is now the most recently used
    cache.set('c', 3, 1000);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([1, undefined, 3]);
    cache.set('a', 4, 1000); // replacing a key takes no room of another's
    expect([cache.size, cache.get('a'), cache.get('c')]).toEqual([2, 4, 3]);
  });

  it('deletes and clears', () => {
    const cache = new TtlCache<number>(10, clock);
    cache.set('a', 1, 1000);
    cache.set('b', 2, 1000);
    cache.delete('a');
    expect([cache.get('a'), cache.get('b')]).toEqual([undefined, 2]);
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
