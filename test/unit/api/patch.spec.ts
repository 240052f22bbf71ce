import { applyPatchBody, jsonPatch, mergePatch } from '../../../src/api/resources/patch';
import { StatusError } from '../../../src/api/errors';

describe('mergePatch (RFC 7386)', () => {
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

  it('does not modify its input', () => {
    const target = { a: { b: 1 } };
    mergePatch(target, { a: { b: 2 } });
    expect(target).toEqual({ a: { b: 1 } });
  });
});

describe('jsonPatch (RFC 6902)', () => {
  it('applies add, remove, replace, move, copy and test', () => {
    const doc = { a: [1, 2], b: { c: 'x' } };
    const out = jsonPatch(doc, [
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

  it('a failed test is 422 and nothing applies', () => {
    expect.assertions(2);
    try {
      jsonPatch({ a: 1 }, [{ op: 'replace', path: '/a', value: 2 }, { op: 'test', path: '/a', value: 5 }]);
    } catch (err) {
      expect(err).toBeInstanceOf(StatusError);
      expect((err as StatusError).code).toBe(422);
    }
  });

  it('a missing path is 422, a malformed operation 400, a non-array 400', () => {
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return (err as StatusError).code;
      }
      return 0;
    };
    expect(code(() => jsonPatch({}, [{ op: 'remove', path: '/x' }]))).toBe(422);
    expect(code(() => jsonPatch({}, [{ op: 'nope', path: '/x' }]))).toBe(400);
    expect(code(() => jsonPatch({}, { op: 'add' }))).toBe(400);
  });
});

describe('applyPatchBody', () => {
  it('picks the patch kind by Content-Type, ignoring parameters', () => {
    const current = { metadata: { name: 'a' }, x: 1 };
    expect(applyPatchBody('application/merge-patch+json; charset=utf-8', current, Buffer.from('{"x":2}'))).toEqual({ metadata: { name: 'a' }, x: 2 });
    expect(applyPatchBody('application/json-patch+json', current, Buffer.from('[{"op":"remove","path":"/x"}]'))).toEqual({ metadata: { name: 'a' } });
  });

  it('unknown types are 415, malformed JSON 400', () => {
    expect(() => applyPatchBody('text/plain', {}, Buffer.from('{}'))).toThrow(expect.objectContaining({ code: 415 }));
    expect(() => applyPatchBody('application/merge-patch+json', {}, Buffer.from('{'))).toThrow(expect.objectContaining({ code: 400 }));
  });
});
