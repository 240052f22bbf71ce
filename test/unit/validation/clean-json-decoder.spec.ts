import { countKeysIfIntegral, decodeCleanJson } from '../../../src/runtime/schema/clean-json-decoder';
import { parseJsonDocument } from '../../../src/runtime/document/json-document';
import { decodeBySchema } from '../../../src/runtime/schema/schema-decoder';
import { podType } from '../../../src/core/kinds/pod';
import { clusterRoleType, roleBindingType } from '../../../src/rbac/kinds/kinds';
import { ResourceType } from '../../../src/runtime/schema/resource-type';

/** What the document decoder (the reference) makes of a body. */
function reference(text: string, type: ResourceType) {
  return decodeBySchema(parseJsonDocument(text), type.schema, { strict: true, dialect: 'json', rootTypeName: `${type.version}.${type.kind}` });
}

describe('clean JSON fast path', () => {
  const clean: Array<[string, ResourceType, unknown]> = [
    [
      'a ClusterRole with an aggregation rule',
      clusterRoleType,
      {
        apiVersion: 'rbac.authorization.platform.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'a', labels: { '1': 'x', b: 'y' }, annotations: {}, finalizers: ['f'] },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'], resourceNames: null }],
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' }, matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }] }] },
      },
    ],
    [
      'nulls: dropped fields, zero-valued list items and map values',
      roleBindingType,
      { metadata: { name: 'b', labels: { a: null }, generateName: null }, subjects: [null, { kind: 'User', name: 'u' }], roleRef: { apiGroup: '', kind: 'Role', name: 'r' } },
    ],
    [
      'a Pod with integers, booleans and free-form managed fields',
      podType,
      {
        metadata: { name: 'p', managedFields: [{ manager: 'm', fieldsV1: { 'f:spec': { '.': {} } } }] },
        spec: { nodeName: 'n', terminationGracePeriodSeconds: 30, automountServiceAccountToken: false, containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }] }] },
      },
    ],
  ];

  it.each(clean)('%s: the same object as the document decoder', (_name, type, body) => {
    const text = JSON.stringify(body, null, 1);
    const expected = reference(text, type);
    expect(expected.strictErrors).toEqual([]);
    expect(expected.typeError).toBeUndefined();
    const fast = decodeCleanJson(text, type.schema);
    expect(fast).toEqual(expected.value);
    // Key order is part of the answer (it is the response's order).
    expect(JSON.stringify(fast)).toBe(JSON.stringify(expected.value));
  });

  const declined: Array<[string, string]> = [
    ['a repeated key', '{"metadata":{"name":"a","name":"b"}}'],
    ['a repeated key spelled with an escape', '{"metadata":{"name":"a","\\u006eame":"b"}}'],
    ['a repeated key inside a free-form field', '{"metadata":{"managedFields":[{"fieldsV1":{"f:a":{},"f:a":{}}}]}}'],
    ['an unknown field', '{"metadata":{"name":"a"},"rules":[]}'],
    ['an inherited property name', '{"constructor":{}}'],
    ['a type error', '{"metadata":{"name":1}}'],
    ['an integer written with a fraction', '{"spec":{"terminationGracePeriodSeconds":30.0}}'],
    ['an integer written with an exponent', '{"spec":{"terminationGracePeriodSeconds":3e1}}'],
    ['an integer beyond int32', '{"spec":{"containers":[{"ports":[{"containerPort":2147483648}]}]}}'],
    ['an integer with more digits than a double keeps', '{"spec":{"activeDeadlineSeconds":12345678901234567}}'],
    ['a syntax error', '{"metadata":{"name":"a"},}'],
    ['a top-level array', '[]'],
  ];

  it.each(declined)('%s: left to the document decoder', (_name, text) => {
    expect(decodeCleanJson(text, podType.schema)).toBeUndefined();
  });

  it('counts written keys, not key-like text inside strings', () => {
    expect(countKeysIfIntegral('{"a":"b:\\"c\\":","d" : [1, {"e":-2}]}')).toBe(3);
    expect(countKeysIfIntegral('{"a":1.5}')).toBe(-1);
  });
});
