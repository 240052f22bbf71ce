import { KubeObject } from '../../../src/apimachinery/types';
import { elementParts, listItemOf } from '../../../src/runtime/serializer/kept-encodings';
import { ListEncodingWarmer } from '../../../src/storage/informer/list-encoding-warmer';
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

/** Cached objects' list encodings are made after the informer lists, before any list asks. */
describe('ListEncodingWarmer', () => {
  it('makes every listed object’s encoding in the informer’s order, so a full list writes them as a few whole runs', async () => {
    const objects = Array.from({ length: 700 }, (_, i) => binding(i));
    const warmer = new ListEncodingWarmer({ list: () => objects });
    warmer.relisted();
    await drained(warmer);
    const items = objects.map((o) => listItemOf(o));
    const parts = [...elementParts(items)];
    // One run per batch the warmer took (256 objects), not a piece per object.
    expect(parts.length).toBeLessThanOrEqual(3);
    expect(`[${text(parts)}]`).toBe(JSON.stringify(objects.map(({ apiVersion: _a, kind: _k, ...rest }) => rest)));
  });

  it('leaves the objects that changes bring to the lists that hold them', async () => {
    const made: KubeObject[] = [];
    const warmer = new ListEncodingWarmer({ list: () => [] }, (objects) => made.push(...objects));
    warmer.applied([change('ADDED', 'rolebindings', binding(1)), change('MODIFIED', 'rolebindings', binding(2))]);
    await drained(warmer);
    expect(made).toEqual([]);
    const listed = [binding(3), binding(4)];
    const relisting = new ListEncodingWarmer({ list: () => listed }, (objects) => made.push(...objects));
    relisting.relisted();
    await drained(relisting);
    expect(made).toEqual(listed);
  });
});
