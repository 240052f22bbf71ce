import { applyJsonPatch, JsonPatchApplyError } from '../../../src/runtime/patch/json-patch';
import { mergePatch } from '../../../src/runtime/patch/merge-patch';

function failure(doc: Record<string, unknown>, ops: Record<string, unknown>[]): string {
  try {
    applyJsonPatch(doc, ops);
  } catch (err) {
    if (err instanceof JsonPatchApplyError) return err.message;
    throw err;
  }
  throw new Error('the patch did not fail');
}

describe('JSON patch (RFC 6902, kube semantics)', () => {
  it('applies add, remove, replace, move, copy and test without touching its input', () => {
    const doc = { a: [1, 2], b: { c: 'x' } };
    const out = applyJsonPatch(doc, [
      { op: 'test', path: '/b/c', value: 'x' },
      { op: 'add', path: '/a/-', value: 3 },
      { op: 'remove', path: '/a/0' },
      { op: 'replace', path: '/b/c', value: 'y' },
      { op: 'copy', from: '/b', path: '/d' },
      { op: 'move', from: '/d/c', path: '/e' },
    ]);
    expect(out).toEqual({ a: [2, 3], b: { c: 'y' }, d: {}, e: 'y' });
    expect(doc).toEqual({ a: [1, 2], b: { c: 'x' } });
  });

  it('counts negative array indexes from the end, as kube does', () => {
    expect(applyJsonPatch({ a: [1, 2, 3] }, [{ op: 'remove', path: '/a/-1' }])).toEqual({ a: [1, 2] });
    expect(applyJsonPatch({ a: [1, 2] }, [{ op: 'replace', path: '/a/-2', value: 9 }])).toEqual({ a: [9, 2] });
  });

  it('replace of a missing object key sets it; a test for null passes on a missing key', () => {
    expect(applyJsonPatch({ a: {} }, [{ op: 'replace', path: '/a/b', value: 1 }])).toEqual({ a: { b: 1 } });
    expect(applyJsonPatch({ a: {} }, [{ op: 'test', path: '/a/b', value: null }])).toEqual({ a: {} });
  });

  it.each<[string, Record<string, unknown>[], string]>([
    ['a failed test', [{ op: 'test', path: '/a', value: 2 }], 'testing value /a failed: test failed'],
    ['a test of a missing key', [{ op: 'test', path: '/x', value: 1 }], 'testing value /x failed: test failed'],
    ['a test under a missing path', [{ op: 'test', path: '/x/y', value: 1 }], 'test operation does not apply: is missing path: /x/y: missing value'],
    ['add under a missing path', [{ op: 'add', path: '/x/y', value: 1 }], 'add operation does not apply: doc is missing path: "/x/y": missing value'],
    ['remove of a missing key', [{ op: 'remove', path: '/x' }], "error in remove for path: '/x': Unable to remove nonexistent key: x: missing value"],
    ['remove under a missing path', [{ op: 'remove', path: '/x/y' }], 'remove operation does not apply: doc is missing path: "/x/y": missing value'],
    ['replace under a missing path', [{ op: 'replace', path: '/nothing/here', value: 1 }], 'replace operation does not apply: doc is missing path: /nothing/here: missing value'],
    ['replace of an index past the end', [{ op: 'replace', path: '/l/5', value: 1 }], 'replace operation does not apply: doc is missing key: /l/5: missing value'],
    ['add past the end of a list', [{ op: 'add', path: '/l/5', value: 1 }], "error in add for path: '/l/5': Unable to access invalid index: 5: invalid index referenced"],
    ['a move from a missing path', [{ op: 'move', from: '/x/y', path: '/z' }], 'move operation does not apply: doc is missing from path: /x/y: missing value'],
    ['an unknown operation', [{ op: 'nope', path: '/x' }], 'Unexpected kind: nope'],
    ['an operation without op', [{ path: '/x' }], 'Unexpected kind: unknown'],
    ['add without a path', [{ op: 'add', value: 1 }], 'add operation failed to decode path: missing value'],
  ])('%s fails with kube\'s words', (_title, ops, message) => {
    expect(failure({ a: 1, l: [1] }, ops)).toBe(message);
  });

  it('stops at the first failing operation', () => {
    const doc = { a: 1 };
    expect(failure(doc, [{ op: 'replace', path: '/a', value: 2 }, { op: 'test', path: '/a', value: 5 }])).toBe('testing value /a failed: test failed');
    expect(doc).toEqual({ a: 1 });
  });
});

describe('merge patch (RFC 7386)', () => {
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j + %j = %j', (target, patch, result) => {
    expect(mergePatch(target, patch)).toEqual(result);
  });

  it('does not modify its inputs', () => {
    const target = { a: { b: 1 } };
    const patch = { a: { b: 2 } };
    mergePatch(target, patch);
    expect(target).toEqual({ a: { b: 1 } });
    expect(patch).toEqual({ a: { b: 2 } });
  });

  it('a list replaces the whole document, with nulls in its objects dropped', () => {
    expect(mergePatch({ a: 1 }, [{ x: null, y: 1 }])).toEqual([{ y: 1 }]);
  });
});
