import * as fc from 'fast-check';
import { fromJsonChunks, fromJsonChunksInSlices, toJsonChunks } from '../../../src/runtime/offload/json-chunks';

/**
 * A value cut into JSON pieces is built again as JSON.parse would build its JSON: the same
 * members in the same order, whatever the sizes of the pieces.
 */
describe('JSON in pieces', () => {
  const asParsed = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

  it('builds any JSON value again, at once or in slices, for any piece size', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.integer({ min: 1, max: 64 }), async (value, chunkChars) => {
        const chunks = toJsonChunks(value, chunkChars);
        const expected = JSON.stringify(asParsed(value));
        expect(JSON.stringify(fromJsonChunks(chunks))).toBe(expected);
        expect(JSON.stringify(await fromJsonChunksInSlices(chunks))).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('cuts a large map and a large array into many pieces and nests pieces in pieces', () => {
    const data: Record<string, string> = {};
    for (let i = 0; i < 20_000; i++) data[`key-${i}`] = 'v'.repeat(30);
    const rules = Array.from({ length: 5_000 }, (_, i) => ({ verbs: ['get'], resourceNames: Array.from({ length: i === 7 ? 20_000 : 1 }, (_, j) => `n-${j}`) }));
    const value = { metadata: { name: 'x' }, data, rules, 10: 'integer key', z: [undefined, null] };
    const chunks = toJsonChunks(value);
    expect(chunks.parts.length).toBeGreaterThan(10);
    // The long list inside one rule is filled by pieces of its own.
    expect(chunks.parts.some((p) => p.path.join('/') === 'rules/7/resourceNames')).toBe(true);
    expect(JSON.stringify(fromJsonChunks(chunks))).toBe(JSON.stringify(value));
  });

  it('keeps a __proto__ member as a member, not as the prototype', async () => {
    const value = JSON.parse(`{"a":{"__proto__":{"polluted":true},"b":[${'1,'.repeat(100)}2]}}`) as Record<string, unknown>;
    const built = (await fromJsonChunksInSlices(toJsonChunks(value, 8))) as { a: Record<string, unknown> };
    expect(Object.hasOwn(built.a, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(built.a)).toBe(Object.prototype);
    expect(JSON.stringify(built)).toBe(JSON.stringify(value));
  });
});
