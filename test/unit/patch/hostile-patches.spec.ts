import { statusOf } from '../../support/status-of';
import { applyJsonPatch, JsonPatchApplyError, JsonPatchDepthError, MAX_COPY_BYTES } from '../../../src/runtime/patch/json-patch';
import { mergePatch } from '../../../src/runtime/patch/merge-patch';
import { applyPatch, parsePatch, ParsedPatch } from '../../../src/runtime/patch/patcher';
import { strategicMergePatch } from '../../../src/runtime/patch/strategic-merge-patch';
import { MAX_NESTING_DEPTH } from '../../../src/runtime/document/nesting';
import { configMapType } from '../../../src/core/kinds/config-map';

const configMap = () => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default', generation: 1 }, data: { k: 'v' } });

const run = (type: ParsedPatch['type'], body: string, directive: 'Ignore' | 'Warn' | 'Strict' = 'Warn') =>
  applyPatch(configMapType, configMap(), parsePatch(type, Buffer.from(body)), directive);

const own = (value: unknown) => Object.keys(value as object);

describe('keys named like inherited members are ordinary keys in every patch type', () => {
  it('JSON patch adds, reads, tests and removes them', () => {
    const out = applyJsonPatch({ data: {} }, [
      { op: 'add', path: '/data/__proto__', value: { polluted: 1 } },
      { op: 'add', path: '/data/constructor', value: 'c' },
      { op: 'test', path: '/data/__proto__', value: { polluted: 1 } },
      { op: 'copy', from: '/data/constructor', path: '/data/toString' },
      { op: 'remove', path: '/data/constructor' },
    ]) as { data: Record<string, unknown> };
    expect(own(out.data)).toEqual(['__proto__', 'toString']);
    expect(out.data.polluted).toBeUndefined();
    expect(out.data.toString).toBe('c');
  });

  it('a JSON patch path through a missing inherited name is missing, not the prototype', () => {
    expect(() => applyJsonPatch({ metadata: {} }, [{ op: 'add', path: '/metadata/__proto__/x', value: 'y' }])).toThrow(
      new JsonPatchApplyError('add operation does not apply: doc is missing path: "/metadata/__proto__/x": missing value'),
    );
    expect(() => applyJsonPatch({ data: {} }, [{ op: 'remove', path: '/data/toString' }])).toThrow(
      new JsonPatchApplyError("error in remove for path: '/data/toString': Unable to remove nonexistent key: toString: missing value"),
    );
    expect(() => applyJsonPatch({ data: {} }, [{ op: 'test', path: '/data/constructor', value: 'x' }])).toThrow(
      new JsonPatchApplyError('testing value /data/constructor failed: test failed'),
    );
  });

  it('merge patch sets and deletes them like any key, and goes on with the keys after them', () => {
    const patch = JSON.parse('{"data":{"__proto__":{"polluted":1},"constructor":"c","hasOwnProperty":"h","after":"a"}}');
    const out = mergePatch({ data: { hasOwnProperty: 'old' } }, patch) as { data: Record<string, unknown> };
    expect(out.data).toEqual(JSON.parse('{"hasOwnProperty":"h","__proto__":{"polluted":1},"constructor":"c","after":"a"}'));
    expect(out.data.polluted).toBeUndefined();
    const removed = mergePatch(out, JSON.parse('{"data":{"__proto__":null,"constructor":null}}')) as { data: object };
    expect(own(removed.data)).toEqual(['hasOwnProperty', 'after']);
  });

  it('strategic merge patch merges them like any key', () => {
    const out = strategicMergePatch({ data: { k: 'v' } }, JSON.parse('{"data":{"__proto__":"p","toString":"t"}}'), configMapType.schema);
    expect(own(out.data)).toEqual(['k', '__proto__', 'toString']);
  });

  it('through the whole patch flow, a ConfigMap keeps such data keys', () => {
    for (const [type, body] of [
      ['merge', '{"data":{"__proto__":"p","constructor":"c"}}'],
      ['strategic', '{"data":{"__proto__":"p","constructor":"c"}}'],
      ['json', '[{"op":"add","path":"/data/__proto__","value":"p"},{"op":"add","path":"/data/constructor","value":"c"}]'],
    ] as const) {
      const out = run(type, body, 'Strict');
      expect(own(out.object.data)).toEqual(['k', '__proto__', 'constructor']);
    }
  });
});

describe('JSON patches that would build what no decoder accepts', () => {
  it('an operation nesting the document past the limit is refused as kube refuses to decode the result', () => {
    let value: unknown = 'x';
    for (let i = 0; i < MAX_NESTING_DEPTH - 2; i++) value = [value];
    // /data/x holds the value at depth 3: within the limit; the next copy goes one level deeper.
    const fits = [{ op: 'add', path: '/data/x', value }];
    expect(() => applyJsonPatch({ data: {} }, structuredClone(fits))).not.toThrow();
    const deeper = [...structuredClone(fits), { op: 'add', path: '/data/y', value: {} }, { op: 'copy', from: '/data/x', path: '/data/y/z' }];
    expect(() => applyJsonPatch({ data: {} }, deeper)).toThrow(JsonPatchDepthError);

    const err = statusOf(() => run('json', JSON.stringify(deeper)));
    expect([err.code, err.reason]).toEqual([422, 'Invalid']);
    expect(err.message).toMatch(/^ "" is invalid: patch: Invalid value: ".*": couldn't get version\/kind; json parse error: invalid character '\[' exceeded max depth$/);
  });

  it('copies that double the document stop at kube\'s accumulated copy size', () => {
    const ops: Record<string, unknown>[] = [{ op: 'add', path: '/a', value: ['x'.repeat(1000)] }];
    for (let i = 0; i < 40; i++) ops.push({ op: 'copy', from: '/a', path: `/b${i}` }, { op: 'copy', from: `/b${i}`, path: '/a/-' });
    expect(() => applyJsonPatch({}, ops)).toThrow(/^Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728$/);
    expect(MAX_COPY_BYTES).toBe(3 * 1024 * 1024);
  });
});

describe('numbers that do not fit', () => {
  it('a float64 overflow in a patch is 400 with Go\'s words', () => {
    expect(statusOf(() => run('strategic', '{"data":{"k":1e400}}')).message).toBe('json: cannot unmarshal number 1e400 into Go value of type float64');
    expect(statusOf(() => run('merge', '{"data":{"k":-1e999}}')).message).toBe(
      'error decoding patch: json: cannot unmarshal number -1e999 into Go value of type float64',
    );
    expect(statusOf(() => run('json', '[{"op":"add","path":"/data/k","value":1e400}]')).code).toBe(400);
  });

  it('strategic merge checks integer fields as create does: whole and within the field\'s range', () => {
    for (const generation of ['1.5', '99999999999999999999', '-1e300']) {
      const err = statusOf(() => run('strategic', `{"metadata":{"generation":${generation}}}`));
      expect([err.code, err.reason]).toEqual([422, 'Invalid']);
      expect(err.message).toMatch(/: cannot convert float64 to int64$/);
    }
    expect(run('strategic', '{"metadata":{"generation":9007199254740991}}').object.metadata).toMatchObject({ generation: 9007199254740991 });
  });
});
