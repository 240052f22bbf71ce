import { FieldSet } from '../../../src/runtime/apply/field-set';
import { FieldsV1Error, fromFieldsV1, toFieldsV1 } from '../../../src/runtime/apply/fields-v1';
import {
  describePath,
  field,
  indexItem,
  keyItem,
  parsePathElement,
  PathElementSyntaxError,
  serializePathElement,
  valueItem,
} from '../../../src/runtime/apply/path-element';

const f = field;

/** FieldsV1 as kube writes it, and back. */
describe('path elements', () => {
  it('serialises each kind as structured-merge-diff does', () => {
    expect(serializePathElement(f('metadata'))).toBe('f:metadata');
    expect(serializePathElement(f('kubernetes.io/name'))).toBe('f:kubernetes.io/name');
    // Key fields sorted by name, values as compact JSON.
    expect(serializePathElement(keyItem({ port: 80, name: 'http' }))).toBe('k:{"name":"http","port":80}');
    expect(serializePathElement(keyItem({ uid: 'a<b>&c' }))).toBe('k:{"uid":"a\\u003cb\\u003e\\u0026c"}');
    expect(serializePathElement(valueItem('foregroundDeletion'))).toBe('v:"foregroundDeletion"');
    expect(serializePathElement(valueItem(42))).toBe('v:42');
    expect(serializePathElement(valueItem(true))).toBe('v:true');
    expect(serializePathElement(indexItem(3))).toBe('i:3');
  });

  it('parses each kind back, sorting key fields', () => {
    expect(parsePathElement('f:rules')).toEqual(f('rules'));
    expect(parsePathElement('k:{"port":80,"name":"http"}')).toEqual(keyItem({ name: 'http', port: 80 }));
    expect(parsePathElement('v:"x"')).toEqual(valueItem('x'));
    expect(parsePathElement('i:-1')).toEqual(indexItem(-1));
    // A type a newer writer may know is skipped, not an error.
    expect(parsePathElement('z:whatever')).toBeNull();
    expect(() => parsePathElement('f')).toThrow(PathElementSyntaxError);
    expect(() => parsePathElement('fx')).toThrow('missing colon: fx');
    expect(() => parsePathElement('k:[1]')).toThrow(PathElementSyntaxError);
    expect(() => parsePathElement('v:{bad')).toThrow(PathElementSyntaxError);
    expect(() => parsePathElement('i:one')).toThrow(PathElementSyntaxError);
  });

  it('prints paths as conflict messages name them', () => {
    expect(describePath([f('metadata'), f('labels'), f('app')])).toBe('.metadata.labels.app');
    expect(describePath([f('spec'), f('ports'), keyItem({ name: 'http', port: 80 }), f('protocol')])).toBe('.spec.ports[name="http",port=80].protocol');
    expect(describePath([f('metadata'), f('finalizers'), valueItem('a"b')])).toBe('.metadata.finalizers[="a\\"b"]');
    expect(describePath([f('args'), indexItem(0)])).toBe('.args[0]');
  });
});

describe('FieldsV1', () => {
  it('encodes leaves as {} and parents that are members with "." first', () => {
    const set = FieldSet.of(
      [f('metadata'), f('labels')],
      [f('metadata'), f('labels'), f('app')],
      [f('rules')],
      [f('metadata'), f('finalizers'), valueItem('b')],
      [f('metadata'), f('finalizers'), valueItem('a')],
    );
    const encoded = toFieldsV1(set);
    expect(encoded).toEqual({
      'f:metadata': { 'f:finalizers': { 'v:"a"': {}, 'v:"b"': {} }, 'f:labels': { '.': {}, 'f:app': {} } },
      'f:rules': {},
    });
    // Key order is kube's: "." first, then path elements in order (fields, keys, values, indexes).
    expect(JSON.stringify(encoded)).toBe('{"f:metadata":{"f:finalizers":{"v:\\"a\\"":{},"v:\\"b\\"":{}},"f:labels":{".":{},"f:app":{}}},"f:rules":{}}');
  });

  it('orders fields before keys before values before indexes, and values by type then value', () => {
    const set = FieldSet.of([indexItem(1)], [valueItem('b')], [valueItem(2)], [valueItem(10)], [keyItem({ name: 'a' })], [f('z')], [f('a')]);
    expect(Object.keys(toFieldsV1(set))).toEqual(['f:a', 'f:z', 'k:{"name":"a"}', 'v:2', 'v:10', 'v:"b"', 'i:1']);
  });

  it('round-trips sets of every shape', () => {
    const sets = [
      new FieldSet(),
      FieldSet.of([f('a')]),
      FieldSet.of([f('a')], [f('a'), f('b')], [f('a'), f('b'), f('c')]),
      FieldSet.of(
        [f('spec'), f('ports'), keyItem({ name: 'http', port: 80 })],
        [f('spec'), f('ports'), keyItem({ name: 'http', port: 80 }), f('name')],
        [f('spec'), f('ports'), keyItem({ name: 'http', port: 80 }), f('port')],
        [f('spec'), f('tags'), valueItem('x')],
        [f('spec'), f('list'), indexItem(0), f('x')],
      ),
    ];
    for (const set of sets) {
      const decoded = fromFieldsV1(JSON.parse(JSON.stringify(toFieldsV1(set))));
      expect(decoded.equals(set)).toBe(true);
      expect(toFieldsV1(decoded)).toEqual(toFieldsV1(set));
    }
  });

  it('reads "." as membership, an empty object as a leaf, and skips unknown key types', () => {
    const set = fromFieldsV1({ 'f:a': { '.': {}, 'f:b': {} }, 'f:c': {}, 'x:ignored': { 'f:d': {} } });
    expect(set.has([f('a')])).toBe(true);
    expect(set.has([f('a'), f('b')])).toBe(true);
    expect(set.has([f('c')])).toBe(true);
    expect(set.paths()).toHaveLength(3);
    // A node with children and no "." is not a member itself.
    expect(fromFieldsV1({ 'f:a': { 'f:b': {} } }).has([f('a')])).toBe(false);
  });

  it('rejects what is not FieldsV1', () => {
    expect(() => fromFieldsV1([])).toThrow(FieldsV1Error);
    expect(() => fromFieldsV1({ 'f:a': 'x' })).toThrow(FieldsV1Error);
    expect(() => fromFieldsV1({ 'k:notjson': {} })).toThrow('parsing key as path element');
  });
});

describe('FieldSet', () => {
  const a = FieldSet.of([f('x')], [f('y'), f('z')], [f('y'), f('w')]);
  const b = FieldSet.of([f('y'), f('z')], [f('q')]);

  it('unions, intersects and subtracts leaf by leaf', () => {
    expect(a.union(b).paths().map(describePath)).toEqual(['.q', '.x', '.y.w', '.y.z']);
    expect(a.intersection(b).paths().map(describePath)).toEqual(['.y.z']);
    expect(a.difference(b).paths().map(describePath)).toEqual(['.x', '.y.w']);
  });

  it('difference keeps children of a removed member; recursive difference drops them', () => {
    const owner = FieldSet.of([f('spec')], [f('spec'), f('a')]);
    const strip = FieldSet.of([f('spec')]);
    expect(owner.difference(strip).paths().map(describePath)).toEqual(['.spec.a']);
    expect(owner.recursiveDifference(strip).empty()).toBe(true);
  });

  it('lists members before children at each level', () => {
    const set = FieldSet.of([f('spec'), f('z'), f('deep')], [f('spec'), f('a')], [f('rules')]);
    expect(set.paths().map(describePath)).toEqual(['.rules', '.spec.a', '.spec.z.deep']);
  });
});
