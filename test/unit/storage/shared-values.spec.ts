import { shareRepeatedValues } from '../../../src/storage/informer/shared-values';
import { KubeObject } from '../../../src/apimachinery/types';

/** Two bindings as two separate JSON texts decode them: equal values, different strings. */
function decodedBinding(name: string): KubeObject {
  return JSON.parse(
    JSON.stringify({
      apiVersion: 'rbac.authorization.platform.io/v1',
      kind: 'RoleBinding',
      metadata: {
        name,
        namespace: 'team-a',
        uid: `uid-${name}`,
        creationTimestamp: '2026-11-29T05:31:26Z',
        managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'rbac.authorization.platform.io/v1', time: '2026-11-29T05:31:26Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:roleRef': {} } }],
      },
      roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: `user-${name}` }],
    }),
  ) as KubeObject;
}

describe('repeated values of cached objects', () => {
  it('leaves every object equal to what was decoded, with nothing added, removed or reordered', () => {
    const a = decodedBinding('a');
    const before = JSON.stringify(a);
    shareRepeatedValues(a);
    expect(JSON.stringify(a)).toBe(before);
  });

  it('leaves objects of any shape alone where the fields are missing or not strings', () => {
    const odd = { apiVersion: 1, metadata: { managedFields: 'x', namespace: null }, roleRef: ['x'], subjects: [null, 3, { kind: 5 }] } as unknown as KubeObject;
    const before = JSON.stringify(odd);
    expect(() => shareRepeatedValues(odd)).not.toThrow();
    expect(JSON.stringify(odd)).toBe(before);
  });

  it('shares equal managed-field sets between objects, leaving each object equal to what was decoded', () => {
    const a = decodedBinding('a');
    const b = decodedBinding('b');
    const texts = [JSON.stringify(a), JSON.stringify(b)];
    shareRepeatedValues(a);
    shareRepeatedValues(b);
    expect(a.metadata.managedFields![0].fieldsV1).toBe(b.metadata.managedFields![0].fieldsV1);
    expect([JSON.stringify(a), JSON.stringify(b)]).toEqual(texts);
  });

  it('keeps no more than a bounded pool, whatever values pass through it', () => {
    for (let i = 0; i < 50_000; i++) shareRepeatedValues({ apiVersion: `v${i}`, kind: 'K', metadata: { name: 'n', namespace: `ns-${i}` } } as KubeObject);
    const a = decodedBinding('a');
    shareRepeatedValues(a);
    expect(JSON.stringify(a)).toBe(JSON.stringify(decodedBinding('a')));
  });
});
