import { KubeObject } from '../../../src/apimachinery/types';
import { elementParts, listItemOf } from '../../../src/runtime/serializer/kept-encodings';
import { ListEncodingWarmer } from '../../../src/storage/cacher/list-encoding-warmer';
import { Change } from '../../../src/storage/mvcc/object-store';

const binding = (i: number): KubeObject => ({
  apiVersion: 'rbac.authorization.platform.io/v1',
  kind: 'RoleBinding',
  metadata: { name: `rb-${i}`, namespace: 'ns', resourceVersion: String(i) },
  roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' },
});

const change = (type: Change['type'], resource: string, object: KubeObject): Change => ({
  type,
  key: { resource, namespace: 'ns', name: object.metadata.name! },
  revision: object.metadata.resourceVersion!,
  object,
  bytes: 0,
});

/** Turns of the event loop until the warmer has nothing left to make (bounded: it must finish). */
async function drained(warmer: ListEncodingWarmer): Promise<void> {
  for (let turns = 0; warmer.pending() && turns < 10_000; turns++) await new Promise((resolve) => setImmediate(resolve));
  expect(warmer.pending()).toBe(false);
}

const text = (parts: Iterable<string | Buffer>) => [...parts].map((p) => (typeof p === 'string' ? p : p.toString('utf8'))).join('');

/** Cached objects' list encodings are made after the informer lists and as changes come, before any list asks. */
describe('ListEncodingWarmer', () => {
  it('makes every listed object’s encoding in the informer’s order, so a full list writes them as a few whole runs', async () => {
    const objects = Array.from({ length: 700 }, (_, i) => binding(i));
    const warmer = new ListEncodingWarmer({ resource: 'rolebindings', list: () => objects });
    warmer.relisted();
    await drained(warmer);
    const items = objects.map((o) => listItemOf(o));
    const parts = [...elementParts(items)];
    // One run per batch the warmer took (256 objects), not a piece per object.
    expect(parts.length).toBeLessThanOrEqual(3);
    expect(`[${text(parts)}]`).toBe(JSON.stringify(objects.map(({ apiVersion: _a, kind: _k, ...rest }) => rest)));
  });

  it('takes the added and modified objects of its own resource from each batch of changes', async () => {
    const made: KubeObject[] = [];
    const warmer = new ListEncodingWarmer({ resource: 'rolebindings', list: () => [] }, (objects) => made.push(...objects));
    const [added, modified, deleted, other] = [binding(1), binding(2), binding(3), binding(4)];
    warmer.applied([change('ADDED', 'rolebindings', added), change('MODIFIED', 'rolebindings', modified), change('DELETED', 'rolebindings', deleted), change('ADDED', 'roles', other)]);
    await drained(warmer);
    expect(made).toEqual([added, modified]);
  });
});
