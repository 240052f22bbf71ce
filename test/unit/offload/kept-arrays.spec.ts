import fc from 'fast-check';
import { jsonParts } from '../../../src/runtime/serializer/json-pieces';
import { arrayParts, keepArrayEncoding } from '../../../src/runtime/serializer/kept-arrays';
import { keepEncoding } from '../../../src/runtime/serializer/kept-encodings';

/** The text a writer sends for the parts: Buffers are UTF-8. */
const text = (parts: Iterable<string | Buffer>) => Buffer.concat([...parts].map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p))).toString('utf8');

/**
 * A kept array (a who-can answer's users, groups or grants, shared by repeated answers) is
 * written from the pieces its first writing made: every writing is JSON.stringify's text.
 */
describe('kept arrays', () => {
  const element = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 6 }),
    fc.string({ maxLength: 4 }).map((name) => keepEncoding({ binding: { name }, subjects: [{ kind: 'User', name: `${name}-ü"` }] })),
    fc.constantFrom(null, 7, true, undefined),
  );

  it('write as JSON.stringify does, the first time and again', () => {
    fc.assert(
      fc.property(fc.array(element, { maxLength: 3000 }), (items) => {
        const expected = JSON.stringify({ status: { users: items } });
        const kept = keepArrayEncoding(items);
        expect(text(jsonParts({ status: { users: kept } }))).toBe(expected);
        expect(text(jsonParts({ status: { users: kept } }))).toBe(expected);
      }),
      { numRuns: 60 },
    );
  });

  it('are the same after a writer stopped part way through', () => {
    const items = Array.from({ length: 5000 }, (_, i) => `group-${i}-\u{1F600}`);
    const kept = keepArrayEncoding(items);
    const first = arrayParts(kept);
    first.next();
    first.return(undefined);
    expect(`[${text(arrayParts(kept))}]`).toBe(JSON.stringify(items));
    expect(`[${text(arrayParts(kept))}]`).toBe(JSON.stringify(items));
  });

  it('cannot be changed once kept', () => {
    const kept = keepArrayEncoding(['a', 'b']) as string[];
    expect(() => kept.push('c')).toThrow(TypeError);
    expect(JSON.stringify(kept)).toBe('["a","b"]');
  });
});
