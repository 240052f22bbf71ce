import { valueToDoc } from '../../../src/runtime/document/document';
import { parseJsonDocument } from '../../../src/runtime/document/json-document';
import { decodeBySchema, DecodeOptions } from '../../../src/runtime/schema/schema-decoder';
import { parseYamlDocument } from '../../../src/runtime/document/yaml-document';
import { clusterRoleSchema, roleBindingSchema, roleSchema } from '../../../src/rbac/kinds/schemas';
import { namespaceSchema } from '../../../src/core/namespace';

const strict: DecodeOptions = { strict: true, dialect: 'json', rootTypeName: 'v1.Role' };
const decodeJson = (text: string, schema = roleSchema, opts: Partial<DecodeOptions> = {}) =>
  decodeBySchema(parseJsonDocument(text), schema, { ...strict, ...opts });

describe('decoding by schema: unknown fields', () => {
  it('names each unknown field by its path, list items by index, and drops them', () => {
    const result = decodeJson(
      JSON.stringify({ metadata: { name: 'r', foo: 1 }, spec: { x: 1 }, rules: [{ verbs: ['get'], bar: true }, { verbs: ['list'], resourceNames: [], baz: {} }] }),
    );
    expect(result.strictErrors).toEqual([
      'unknown field "metadata.foo"',
      'unknown field "spec"',
      'unknown field "rules[0].bar"',
      'unknown field "rules[1].baz"',
    ]);
    expect(result.value).toEqual({ metadata: { name: 'r' }, rules: [{ verbs: ['get'] }, { verbs: ['list'], resourceNames: [] }] });
  });

  it('treats names of inherited object properties as unknown fields', () => {
    const result = decodeJson('{"metadata":{"name":"r","toString":"x"},"constructor":{"a":1}}');
    expect(result.strictErrors).toEqual(['unknown field "metadata.toString"', 'unknown field "constructor"']);
    expect(result.value).toEqual({ metadata: { name: 'r' } });
  });

  it('reports nothing below an unknown field, and accepts any key of a map', () => {
    const result = decodeJson('{"metadata":{"labels":{"any-key":"v"},"annotations":{"x":"y"}},"extra":{"deep":{"deeper":1}}}');
    expect(result.strictErrors).toEqual(['unknown field "extra"']);
  });

  it('takes anything in an `any` field (managedFields[].fieldsV1)', () => {
    const result = decodeJson('{"metadata":{"managedFields":[{"manager":"m","fieldsV1":{"f:metadata":{"x":[1,{"y":null}]}}}]}}');
    expect(result.strictErrors).toEqual([]);
    expect(result.value).toEqual({ metadata: { managedFields: [{ manager: 'm', fieldsV1: { 'f:metadata': { x: [1, { y: null }] } } }] } });
  });

  it('drops unknown fields silently when not strict (fieldValidation=Ignore)', () => {
    const result = decodeJson('{"metadata":{"name":"r"},"status":{}}', roleSchema, { strict: false });
    expect(result).toEqual({ value: { metadata: { name: 'r' } }, strictErrors: [] });
  });

  it('reports one error per path, and at most 100', () => {
    const dup = decodeJson('{"a":1,"a":2,"a":3}');
    expect(dup.strictErrors).toEqual(['unknown field "a"']);
    const many = decodeJson(JSON.stringify(Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`f${i}`, i]))));
    expect(many.strictErrors).toHaveLength(100);
  });
});

describe('decoding by schema: duplicate fields', () => {
  it('names repeated struct fields, map keys and fields of list items', () => {
    const result = decodeJson('{"metadata":{"name":"a","name":"b","labels":{"x":"1","x":"2"}},"rules":[{"verbs":["get"],"verbs":["list"]}]}');
    expect(result.strictErrors).toEqual(['duplicate field "metadata.name"', 'duplicate field "metadata.labels.x"', 'duplicate field "rules[0].verbs"']);
    // The last value wins for scalars and lists, as Go decodes them.
    expect(result.value).toEqual({ metadata: { name: 'b', labels: { x: '2' } }, rules: [{ verbs: ['list'] }] });
  });

  it('a repeated object field is decoded into what the first one filled', () => {
    const result = decodeJson('{"metadata":{"name":"a"},"metadata":{"labels":{"k":"v"}}}');
    expect(result.strictErrors).toEqual(['duplicate field "metadata"']);
    expect(result.value).toEqual({ metadata: { name: 'a', labels: { k: 'v' } } });
  });

  it('interleaves unknown and duplicate fields in document order', () => {
    const result = decodeJson('{"zz":1,"metadata":{"name":"a"},"metadata":{},"yy":2}');
    expect(result.strictErrors).toEqual(['unknown field "zz"', 'duplicate field "metadata"', 'unknown field "yy"']);
  });
});

describe('decoding by schema: JSON types', () => {
  it.each<[string, string, object]>([
    ['{"rules":"x"}', 'json: cannot unmarshal string into Go struct field Role.rules of type []v1.PolicyRule', roleSchema],
    ['{"rules":[{"verbs":"get"}]}', 'json: cannot unmarshal string into Go struct field PolicyRule.rules.verbs of type []string', roleSchema],
    ['{"rules":["get"]}', 'json: cannot unmarshal string into Go struct field Role.rules of type v1.PolicyRule', roleSchema],
    ['{"metadata":{"labels":{"a":1}}}', 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string', roleSchema],
    ['{"metadata":{"generation":1.5}}', 'json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.metadata.generation of type int64', roleSchema],
    ['{"metadata":{"name":true}}', 'json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.name of type string', roleSchema],
    ['{"metadata":"x"}', 'json: cannot unmarshal string into Go struct field Role.metadata of type v1.ObjectMeta', roleSchema],
    ['{"metadata":{"uid":5}}', 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.uid of type types.UID', roleSchema],
    ['{"roleRef":"view"}', 'json: cannot unmarshal string into Go struct field RoleBinding.roleRef of type v1.RoleRef', roleBindingSchema],
    ['{"subjects":[{"kind":"User","name":7}]}', 'json: cannot unmarshal number into Go struct field Subject.subjects.name of type string', roleBindingSchema],
    [
      '{"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":[]}]}}',
      'json: cannot unmarshal array into Go struct field LabelSelector.aggregationRule.clusterRoleSelectors.matchLabels of type map[string]string',
      clusterRoleSchema,
    ],
    ['{"spec":{"finalizers":"kubernetes"}}', 'json: cannot unmarshal string into Go struct field NamespaceSpec.spec.finalizers of type []v1.FinalizerName', namespaceSchema],
    ['[1]', 'json: cannot unmarshal array into Go value of type v1.Role', roleSchema],
    // metav1.Time decodes itself through the standard library, whose error names no field.
    ['{"metadata":{"creationTimestamp":5}}', 'json: cannot unmarshal number into Go value of type string', roleSchema],
    ['{"metadata":{"managedFields":[{"time":true}]}}', 'json: cannot unmarshal bool into Go value of type string', roleSchema],
  ])('%s', (body, message, schema) => {
    const result = decodeJson(body, schema as typeof roleSchema, { rootTypeName: 'v1.Unused' });
    expect(result.typeError).toBe(message);
  });

  it('null is the zero value: absent fields, empty strings in lists', () => {
    const result = decodeJson('{"metadata":{"name":null,"labels":{"a":null}},"rules":[{"verbs":[null,"get"]}, null]}');
    expect(result.typeError).toBeUndefined();
    expect(result.value).toEqual({ metadata: { labels: { a: '' } }, rules: [{ verbs: ['', 'get'] }, {}] });
  });

  it('integers must be integer literals in range', () => {
    expect(decodeJson('{"metadata":{"generation":3}}').value).toEqual({ metadata: { generation: 3 } });
    expect(decodeJson('{"metadata":{"generation":1e3}}').typeError).toBe(
      'json: cannot unmarshal number 1e3 into Go struct field ObjectMeta.metadata.generation of type int64',
    );
    expect(decodeJson('{"metadata":{"generation":9223372036854775808}}').typeError).toContain('number 9223372036854775808');
  });
});

describe('decoding by schema: the map converter dialect (strategic merge patch)', () => {
  const decodeValue = (value: unknown) => decodeBySchema(valueToDoc(value), roleSchema, { strict: true, dialect: 'unstructured', rootTypeName: 'v1.Role' });

  it.each<[unknown, string]>([
    [{ rules: 'x' }, 'cannot restore slice from string'],
    [{ metadata: 'x' }, 'cannot restore struct from: string'],
    [{ metadata: { labels: [] } }, 'cannot restore map from slice'],
    [{ metadata: { name: 5 } }, 'cannot convert int64 to string'],
    [{ metadata: { name: true } }, 'unrecognized type: string'],
    [{ metadata: { generation: 'x' } }, 'unrecognized type: int64'],
    [{ metadata: { generation: 1.5 } }, 'cannot convert float64 to int64'],
    [{ metadata: { creationTimestamp: 5 } }, 'json: cannot unmarshal number into Go value of type string'],
  ])('%j: %s', (value, message) => {
    expect(decodeValue(value).typeError).toBe(message);
  });

  it('names unknown fields the same way', () => {
    expect(decodeValue({ metadata: { name: 'a' }, rules: [{ verbs: ['get'], x: 1 }] }).strictErrors).toEqual(['unknown field "rules[0].x"']);
  });
});

describe('YAML documents', () => {
  it('reports repeated keys with the line of their value, as go-yaml does, and keeps the last', () => {
    const doc = parseYamlDocument('metadata:\n  name: a\n  name: b\nrules:\n- verbs: [get]\n  verbs: [list]\n');
    expect(doc.duplicateKeysError).toBe(
      'error converting YAML to JSON: yaml: unmarshal errors:\n  line 3: key "name" already set in map\n  line 6: key "verbs" already set in map',
    );
    const result = decodeBySchema(doc.node, roleSchema, strict);
    expect(result.value).toEqual({ metadata: { name: 'b' }, rules: [{ verbs: ['list'] }] });
  });

  it('finds unknown fields in YAML like in JSON', () => {
    const doc = parseYamlDocument('metadata:\n  name: a\nrules:\n- verbs: [get]\n  verb: x\n');
    expect(doc.duplicateKeysError).toBeUndefined();
    expect(decodeBySchema(doc.node, roleSchema, strict).strictErrors).toEqual(['unknown field "rules[0].verb"']);
  });

  it('a syntax error names the line', () => {
    expect(() => parseYamlDocument('a: b: c\n')).toThrow(/^error converting YAML to JSON: yaml: line 1: /);
  });
});
