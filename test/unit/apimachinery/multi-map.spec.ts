import { MultiMap } from '../../../src/apimachinery/multi-map';

describe('MultiMap', () => {
  const values = (m: MultiMap<string, number>, key: string) => [...(m.get(key) ?? [])].sort((a, b) => a - b);

  it('keeps distinct values per key, drops a key with its last value', () => {
    const m = new MultiMap<string, number>();
    m.add('a', 1);
    m.add('a', 1);
    m.add('a', 2);
    m.add('b', 3);
    expect(values(m, 'a')).toEqual([1, 2]);
    expect([...m.keys()].sort()).toEqual(['a', 'b']);
    m.delete('a', 1);
    m.delete('a', 7); // not there
    m.delete('c', 1); // no such key
    expect(values(m, 'a')).toEqual([2]);
    m.delete('a', 2);
    expect(m.get('a')).toBeUndefined();
    expect(m.size).toBe(1);
  });

  it('stays a set past the small size and back down to empty', () => {
    const m = new MultiMap<string, number>();
    for (let i = 0; i < 50; i++) m.add('k', i % 25);
    expect(values(m, 'k')).toEqual(Array.from({ length: 25 }, (_, i) => i));
    for (let i = 0; i < 24; i++) m.delete('k', i);
    expect(values(m, 'k')).toEqual([24]);
    m.delete('k', 24);
    expect(m.size).toBe(0);
  });
});
