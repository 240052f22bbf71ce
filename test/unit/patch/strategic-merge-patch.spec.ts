import { objectMetaSchema } from '../../../src/runtime/schema/meta';
import { atomicList, integer, map, mapList, setList, string, struct } from '../../../src/runtime/schema/schema';
import { strategicMergePatch, StrategicMergePatchError } from '../../../src/runtime/patch/strategic-merge-patch';

/**
 * Strategic merge patch against a schema with every kind of marker, one case per rule of
 * kube's strategicpatch package (expected results worked out from kube's algorithm,
 * including the order its normalizeElementOrder leaves lists in).
 */
const itemSchema = struct(
  { name: string(), value: string(), nested: struct({ a: string(), b: string() }), subs: setList(string(), { patchStrategy: 'merge' }) },
  { typeName: 'v1.Item' },
);
const schema = struct({
  metadata: objectMetaSchema,
  spec: struct({
    name: string(),
    replaceList: atomicList(string()),
    mergeItems: mapList(itemSchema, ['name'], { patchStrategy: 'merge', patchMergeKey: 'name' }),
    atomicItems: atomicList(itemSchema),
    scalars: setList(string(), { patchStrategy: 'merge' }),
    retained: struct({ a: string(), b: string(), c: string() }),
    counts: map(integer()),
  }),
});

type Json = Record<string, unknown>;
const patch = (original: Json, p: Json): Json => strategicMergePatch(structuredClone(original), structuredClone(p), schema);
const spec = (s: Json): Json => ({ spec: s });

function failure(original: Json, p: Json): StrategicMergePatchError {
  try {
    patch(original, p);
  } catch (err) {
    if (err instanceof StrategicMergePatchError) return err;
    throw err;
  }
  throw new Error('the patch did not fail');
}

const items = (...names: string[]) => names.map((name) => ({ name }));

describe('strategic merge patch: objects', () => {
  it.each<[string, Json, Json, Json]>([
    ['merges nested objects key by key', spec({ retained: { a: '1' } }), spec({ retained: { b: '2' } }), spec({ retained: { a: '1', b: '2' } })],
    ['replaces a scalar', spec({ name: 'a' }), spec({ name: 'b' }), spec({ name: 'b' })],
    ['null deletes a key', spec({ name: 'a', retained: { a: '1' } }), spec({ name: null }), spec({ retained: { a: '1' } })],
    ['null for a missing key changes nothing', spec({ name: 'a' }), spec({ other: null }), spec({ name: 'a' })],
    ['a new key is taken with its nulls dropped', spec({}), spec({ retained: { a: 'x', b: null } }), spec({ retained: { a: 'x' } })],
    ['a value of another JSON type replaces', spec({ name: 'a' }), spec({ name: { x: '1' } }), spec({ name: { x: '1' } })],
    ['maps (labels) merge per key', { metadata: { labels: { a: '1', b: '2' } } }, { metadata: { labels: { b: null, c: '3' } } }, { metadata: { labels: { a: '1', c: '3' } } }],
    ['map values merge per key (counts)', spec({ counts: { x: 1 } }), spec({ counts: { y: 2 } }), spec({ counts: { x: 1, y: 2 } })],
    ['$patch: replace replaces the object', spec({ retained: { a: '1', b: '2' } }), spec({ retained: { $patch: 'replace', c: '3' } }), spec({ retained: { c: '3' } })],
    ['$patch: delete empties the object', spec({ retained: { a: '1' } }), spec({ retained: { $patch: 'delete' } }), spec({ retained: {} })],
    ['$patch: delete at the top empties everything', spec({ name: 'a' }), { $patch: 'delete' }, {}],
    [
      '$retainKeys clears keys it does not list',
      spec({ retained: { a: '1', b: '2', c: '3' } }),
      spec({ retained: { $retainKeys: ['a', 'b'], b: 'new' } }),
      spec({ retained: { a: '1', b: 'new' } }),
    ],
  ])('%s', (_title, original, p, expected) => {
    expect(patch(original, p)).toEqual(expected);
  });

  it('an unknown $patch on an object is an error naming it', () => {
    const err = failure(spec({ retained: { a: '1' } }), spec({ retained: { $patch: 'foo' } }));
    expect(err.message).toBe('unknown patch type: foo in map: map[$patch:foo]');
    expect(err.category).toBe('Other');
  });

  it('$retainKeys must be a list and must name every key the patch sets (400)', () => {
    const notList = failure(spec({ retained: { a: '1' } }), spec({ retained: { $retainKeys: 'a' } }));
    expect([notList.message, notList.category]).toEqual(['invalid patch format of retainKeys', 'BadRequest']);
    const unlisted = failure(spec({ retained: { a: '1' } }), spec({ retained: { $retainKeys: ['a'], b: '2' } }));
    expect([unlisted.message, unlisted.category]).toEqual(['invalid patch format of retainKeys', 'BadRequest']);
  });

  it('does not change a patch key that is only null in $retainKeys checks', () => {
    expect(patch(spec({ retained: { a: '1', b: '2' } }), spec({ retained: { $retainKeys: ['a'], b: null } }))).toEqual(spec({ retained: { a: '1' } }));
  });
});

describe('strategic merge patch: lists', () => {
  it.each<[string, Json, Json, Json]>([
    ['a list without strategy is replaced', spec({ replaceList: ['a', 'b'] }), spec({ replaceList: ['c'] }), spec({ replaceList: ['c'] })],
    ['an atomic list of objects is replaced', spec({ atomicItems: items('a', 'b') }), spec({ atomicItems: items('c') }), spec({ atomicItems: items('c') })],
    ['a merging scalar list is a union; new items come first', spec({ scalars: ['a', 'b'] }), spec({ scalars: ['c'] }), spec({ scalars: ['c', 'a', 'b'] })],
    ['a merging scalar list keeps one of each', spec({ scalars: ['a', 'b'] }), spec({ scalars: ['b'] }), spec({ scalars: ['a', 'b'] })],
    ['finalizers merge as a set', { metadata: { finalizers: ['x/a'] } }, { metadata: { finalizers: ['x/b', 'x/a'] } }, { metadata: { finalizers: ['x/b', 'x/a'] } }],
    [
      '$deleteFromPrimitiveList removes scalars',
      spec({ scalars: ['a', 'b', 'c'] }),
      { spec: { '$deleteFromPrimitiveList/scalars': ['b'] } },
      spec({ scalars: ['a', 'c'] }),
    ],
    ['$deleteFromPrimitiveList of a missing list adds nothing', spec({ name: 'x' }), { spec: { '$deleteFromPrimitiveList/scalars': ['b'] } }, spec({ name: 'x' })],
    [
      '$deleteFromPrimitiveList works on a list of any strategy',
      spec({ replaceList: ['a', 'b'] }),
      { spec: { '$deleteFromPrimitiveList/replaceList': ['a'] } },
      spec({ replaceList: ['b'] }),
    ],
    [
      'items with the same merge key merge',
      spec({ mergeItems: [{ name: 'a', value: '1' }, { name: 'b', value: '2' }] }),
      spec({ mergeItems: [{ name: 'b', value: '3' }] }),
      spec({ mergeItems: [{ name: 'a', value: '1' }, { name: 'b', value: '3' }] }),
    ],
    [
      'a new item is added before the live ones',
      spec({ mergeItems: items('a', 'b') }),
      spec({ mergeItems: items('c') }),
      spec({ mergeItems: items('c', 'a', 'b') }),
    ],
    [
      'items merge recursively',
      spec({ mergeItems: [{ name: 'a', nested: { a: '1' }, subs: ['x'] }] }),
      spec({ mergeItems: [{ name: 'a', nested: { b: '2' }, subs: ['y'] }] }),
      spec({ mergeItems: [{ name: 'a', nested: { a: '1', b: '2' }, subs: ['y', 'x'] }] }),
    ],
    ['$patch: delete removes the matching item', spec({ mergeItems: items('a', 'b') }), spec({ mergeItems: [{ name: 'a', $patch: 'delete' }] }), spec({ mergeItems: items('b') })],
    ['$patch: replace replaces the whole list', spec({ mergeItems: items('a', 'b') }), spec({ mergeItems: [{ name: 'z' }, { $patch: 'replace' }] }), spec({ mergeItems: items('z') })],
    [
      'null inside a merged item deletes its key',
      spec({ mergeItems: [{ name: 'a', value: '1' }] }),
      spec({ mergeItems: [{ name: 'a', value: null }] }),
      spec({ mergeItems: [{ name: 'a' }] }),
    ],
    ['an empty patch list changes nothing', spec({ mergeItems: items('a') }), spec({ mergeItems: [] }), spec({ mergeItems: items('a') })],
  ])('%s', (_title, original, p, expected) => {
    expect(patch(original, p)).toEqual(expected);
  });

  it('$setElementOrder orders a scalar list', () => {
    expect(patch(spec({ scalars: ['a', 'b', 'c'] }), { spec: { '$setElementOrder/scalars': ['c', 'a', 'b'] } })).toEqual(spec({ scalars: ['c', 'a', 'b'] }));
  });

  it('$setElementOrder orders a merged list of objects', () => {
    const out = patch(spec({ mergeItems: items('a', 'b') }), {
      spec: { '$setElementOrder/mergeItems': items('b', 'a', 'c'), mergeItems: [{ name: 'c', value: '3' }] },
    });
    expect(out).toEqual(spec({ mergeItems: [{ name: 'b' }, { name: 'a' }, { name: 'c', value: '3' }] }));
  });

  it('$setElementOrder must agree with the order of the patch list', () => {
    const err = failure(spec({ mergeItems: items('a', 'b') }), { spec: { '$setElementOrder/mergeItems': items('a', 'b'), mergeItems: items('b', 'a') } });
    expect(err.message).toBe('The order in patch list:\n[map[name:b] map[name:a]]\n doesn\'t match $setElementOrder list:\n[map[name:a] map[name:b]]\n');
  });

  it.each<[string, Json, string, string]>([
    ['a $setElementOrder key without a list name', { spec: { $setElementOrder: ['a'] } }, 'invalid patch format of setElementOrder list', 'BadRequest'],
    ['a $deleteFromPrimitiveList key without a list name', { spec: { $deleteFromPrimitiveList: ['a'] } }, 'invalid patch format of primitive list', 'BadRequest'],
    ['$patch: merge in a list', spec({ mergeItems: [{ name: 'a', $patch: 'merge' }] }), 'merging lists cannot yet be specified in the patch', 'Other'],
    ['an unknown $patch in a list', spec({ mergeItems: [{ name: 'a', $patch: 'foo' }] }), 'unknown patch type: foo in map: map[$patch:foo name:a]', 'Other'],
    ['an item without its merge key', spec({ mergeItems: [{ value: 'x' }] }), 'map: map[value:x] does not contain declared merge key: name', 'Other'],
    ['a $patch: delete item without its merge key', spec({ mergeItems: [{ $patch: 'delete' }] }), 'map: map[$patch:delete] does not contain declared merge key: name', 'Other'],
    ['items of different types', spec({ scalars: ['a', 1] }), 'list element types are not identical: [[x] [a 1]]', 'Other'],
    ['a $setElementOrder that is not a list', { spec: { '$setElementOrder/scalars': 'a' } }, 'expected a []interface {}, but received a string', 'Other'],
  ])('%s is refused', (_title, p, message, category) => {
    const err = failure(spec({ scalars: ['x'], mergeItems: items('a') }), p);
    expect(err.message).toBe(message);
    expect(err.category).toBe(category);
  });
});

describe('strategic merge patch: lists of lists', () => {
  it('are not supported (422)', () => {
    const err = failure(spec({ scalars: [] }), spec({ scalars: [['x']] }));
    expect([err.message, err.category]).toEqual(['lists of lists are not supported', 'Invalid']);
  });
});

describe('strategic merge patch: inputs', () => {
  it('consumes directives from the patch it was given', () => {
    const p: Json = spec({ retained: { $retainKeys: ['a'], a: 'x' } });
    strategicMergePatch(spec({ retained: { a: '1', b: '2' } }), p, schema);
    expect(p).toEqual(spec({ retained: { a: 'x' } }));
  });
});
