import { elementParts, jsonOf, keepEncoding } from '../../../src/runtime/serializer/kept-encodings';
import { jsonParts, jsonPieces } from '../../../src/runtime/serializer/json-pieces';

/** The text a writer sends for the parts: Buffers are UTF-8. */
const text = (parts: Iterable<string | Buffer>) => Buffer.concat([...parts].map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p))).toString('utf8');
const elements = (items: unknown[]) => text(elementParts(items));
const arrayText = (items: unknown[]) => `[${elements(items)}]`;

const item = (i: number) => keepEncoding({ metadata: { name: `rb-${i}`, namespace: `ns-${i % 7}`, annotations: { note: i % 5 ? 'plain' : 'ünïcødé ✓ \u{1F600} "quoted"\n' } }, skipped: undefined });

/**
 * Kept encodings are made a run of values at a time and written as slices of the run: whatever
 * subset and order a later answer holds them in, its text is JSON.stringify's.
 */
describe('kept encodings', () => {
  it('write a list as JSON.stringify does, the first time and again', () => {
    const items = Array.from({ length: 3000 }, (_, i) => item(i));
    expect(arrayText(items)).toBe(JSON.stringify(items));
    expect(arrayText(items)).toBe(JSON.stringify(items));
  });

  it('write any subset, order and mix with other values as JSON.stringify does', () => {
    const items = Array.from({ length: 2500 }, (_, i) => item(i));
    arrayText(items);
    const fresh = Array.from({ length: 50 }, (_, i) => item(10_000 + i));
    const mixes: unknown[][] = [
      items.filter((_, i) => i % 3 !== 1),
      [...items].reverse(),
      [...items.slice(1200, 1300), ...fresh, ...items.slice(0, 10)],
      [fresh[0], { unmarked: true }, undefined, null, 7, 'text', items[5], items[6], items[4]],
      [items[1023], items[1024], items[1025]],
      // Names of a who-can answer, encoded many at a time: quotes, non-ASCII, holes and other plain values among them.
      Array.from({ length: 3000 }, (_, i) => (i % 97 === 0 ? undefined : i % 89 === 0 ? items[i] : `user-"${i}"-ü\u{1F600}`)),
      ['a', , 'b', () => 1, Symbol('s'), true, 1.5],
      [],
      [items[0]],
    ];
    for (const mix of mixes) expect(arrayText(mix)).toBe(JSON.stringify(mix));
  });

  it('write a value from its run alone, and answers with long arrays in parts or pieces', () => {
    const items = Array.from({ length: 600 }, (_, i) => item(20_000 + i));
    const list = { kind: 'List', metadata: { resourceVersion: '9' }, items };
    expect(text(jsonParts(list))).toBe(JSON.stringify(list));
    expect([...jsonPieces(list)].join('')).toBe(JSON.stringify(list));
    expect(jsonOf(items[17])).toBe(JSON.stringify(items[17]));
    expect(jsonOf(item(30_000))).toBe(JSON.stringify(item(30_000)));
    expect(jsonOf(undefined)).toBe('null');
  });

  it('a run of kept values after the first element is one slice', () => {
    const items = Array.from({ length: 100 }, (_, i) => item(40_000 + i));
    elements(items);
    const parts = [...elementParts(items)];
    // The first element has no comma before it; the rest come in one piece from the same run.
    expect(parts).toHaveLength(1);
    expect(text(parts)).toBe(JSON.stringify(items).slice(1, -1));
  });
});
