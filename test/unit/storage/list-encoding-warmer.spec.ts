import { KubeObject } from '../../../src/apimachinery/types';
import { elementParts, listItemOf } from '../../../src/runtime/serializer/kept-encodings';
import { cacheKey } from '../../../src/storage/informer/informer';
import { ListEncodingWarmer } from '../../../src/storage/informer/list-encoding-warmer';
import { Change } from '../../../src/storage/mvcc/object-store';

const binding = (i: number, namespace = 'ns'): KubeObject => ({
  apiVersion: 'rbac.authorization.platform.io/v1',
  kind: 'RoleBinding',
  metadata: { name: `rb-${String(i).padStart(4, '0')}`, namespace, resourceVersion: String(i) },
  roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' },
});

const change = (type: Change['type'], resource: string, object: KubeObject): Change => ({
  type,
  key: { resource, namespace: object.metadata.namespace ?? '', name: object.metadata.name! },
  revision: object.metadata.resourceVersion!,
  object,
  bytes: 0,
});

/** An informer's cache as the warmer reads it. */
function cacheOf(objects: KubeObject[] = []) {
  const items = new Map<string, KubeObject>(objects.map((o) => [cacheKey(o.metadata.namespace ?? '', o.metadata.name!), o]));
  return {
    resource: 'rolebindings',
    items,
    list: () => [...items.values()],
    get: (namespace: string, name: string) => items.get(cacheKey(namespace, name)),
  };
}

/** Turns of the event loop (and its timers) until the warmer has nothing left to make (bounded: it must finish). */
async function drained(warmer: ListEncodingWarmer): Promise<void> {
  for (let turns = 0; warmer.pending() && turns < 10_000; turns++) await new Promise((resolve) => setTimeout(resolve, 0));
  expect(warmer.pending()).toBe(false);
}

const text = (parts: Iterable<string | Buffer>) => [...parts].map((p) => (typeof p === 'string' ? p : p.toString('utf8'))).join('');
const withoutTypeMeta = (objects: KubeObject[]) => objects.map(({ apiVersion: _a, kind: _k, ...rest }) => rest);

/** Cached objects' list encodings are made ahead of the first list that holds them. */
describe('ListEncodingWarmer', () => {
  it('makes every listed object’s encoding in the informer’s order, so a full list writes them as a few whole runs', async () => {
    const objects = Array.from({ length: 700 }, (_, i) => binding(i));
    const warmer = new ListEncodingWarmer(cacheOf(objects));
    warmer.relisted();
    await drained(warmer);
    const items = objects.map((o) => listItemOf(o));
    const parts = [...elementParts(items)];
    // One run per batch the warmer took (256 objects), not a piece per object.
    expect(parts.length).toBeLessThanOrEqual(3);
    expect(`[${text(parts)}]`).toBe(JSON.stringify(withoutTypeMeta(objects)));
  });

  it('makes the encodings of written objects once writes go quiet, in key order, so a list in key order writes them as whole runs', async () => {
    const cache = cacheOf();
    const warmer = new ListEncodingWarmer(cache, undefined, { quietMs: 1 });
    // Written interleaved across namespaces, as many writers do.
    const written = Array.from({ length: 600 }, (_, i) => binding(i, `ns-${i % 3}`));
    for (let i = 0; i < written.length; i += 16) {
      const batch = written.slice(i, i + 16).map((o) => change('ADDED', 'rolebindings', o));
      for (const c of batch) cache.items.set(cacheKey(c.key.namespace, c.key.name), c.object);
      warmer.applied(batch);
    }
    await drained(warmer);
    const inKeyOrder = [...written].sort((a, b) => (a.metadata.namespace! + '/' + a.metadata.name! < b.metadata.namespace! + '/' + b.metadata.name! ? -1 : 1));
    const parts = [...elementParts(inKeyOrder.map((o) => listItemOf(o)))];
    expect(parts.length).toBeLessThanOrEqual(3);
    expect(`[${text(parts)}]`).toBe(JSON.stringify(withoutTypeMeta(inKeyOrder)));
  });

  it('makes only the current objects of its resource: not one written again or deleted since, nor another resource’s', async () => {
    const made: KubeObject[] = [];
    const first = binding(1);
    const second = binding(2);
    const replaced = { ...binding(1), metadata: { ...first.metadata, resourceVersion: '5' } };
    const cache = cacheOf([replaced]);
    const warmer = new ListEncodingWarmer(cache, (objects) => made.push(...objects), { quietMs: 1 });
    warmer.applied([
      change('ADDED', 'rolebindings', first),
      change('ADDED', 'rolebindings', second),
      change('ADDED', 'roles', binding(3)),
      change('MODIFIED', 'rolebindings', replaced),
      change('DELETED', 'rolebindings', second),
    ]);
    await drained(warmer);
    expect(made).toEqual([replaced]);
  });

  it('leaves the written objects whose encodings a list made meanwhile', async () => {
    const made: KubeObject[] = [];
    const written = [binding(1), binding(2), binding(3)];
    const cache = cacheOf(written);
    const warmer = new ListEncodingWarmer(cache, (objects) => made.push(...objects), { quietMs: 1 });
    warmer.applied(written.map((o) => change('ADDED', 'rolebindings', o)));
    // A list of the second one before writes went quiet.
    expect(text(elementParts([listItemOf(written[1])]))).toBe(JSON.stringify(withoutTypeMeta([written[1]])[0]));
    await drained(warmer);
    expect(made).toEqual([written[0], written[2]]);
  });

  it('waits while writes go on', async () => {
    const made: KubeObject[] = [];
    const cache = cacheOf();
    const warmer = new ListEncodingWarmer(cache, (objects) => made.push(...objects), { quietMs: 60_000 });
    const obj = binding(1);
    cache.items.set(cacheKey('ns', obj.metadata.name!), obj);
    warmer.applied([change('ADDED', 'rolebindings', obj)]);
    for (let turns = 0; turns < 20; turns++) await new Promise((resolve) => setImmediate(resolve));
    expect(made).toEqual([]);
    expect(warmer.pending()).toBe(true);
    // A list of the informer makes them with the rest.
    warmer.relisted();
    await drained(warmer);
    expect(made).toEqual([obj]);
  });
});
