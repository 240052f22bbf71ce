import { AccessChangeVias1768000000000 } from '../../../migrations/1768000000000-AccessChangeVias';
import { unpackAccessChange } from '../../../src/access/access-change-stored-form';
import { KubeObject } from '../../../src/apimachinery/types';
import { openTestDatabase, TestDatabase, testEngines } from '../../support/db';

const RESOURCE = 'access.platform.io/accesschanges';
const via = (binding: string) => [{ binding: { kind: 'RoleBinding', namespace: 'a', name: binding }, role: { kind: 'ClusterRole', name: 'view' } }];

/** An entry as servers before the stored form wrote it: every permission with its own `via`. */
const oldEntry = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'access.platform.io/v1',
  kind: 'AccessChange',
  metadata: { name, uid: `uid-${name}`, creationTimestamp: '2026-01-01T00:00:00Z' },
  subject: { kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: `user-${name}` },
  namespace: 'a',
  gained: [
    { verbs: ['get', 'list'], apiGroup: '', resource: 'pods', via: via(name) },
    { verbs: ['get'], apiGroup: '', resource: 'secrets', via: [...via(name), ...via('other')] },
    { verbs: ['get'], apiGroup: '', resource: 'configmaps', via: [...via(name), ...via('other')] },
  ],
  lost: [{ verbs: ['delete'], apiGroup: '', resource: 'pods', via: via(name) }],
  cause: { kind: 'RoleBinding', namespace: 'a', name, resourceVersion: '1', operation: 'Create', user: { username: 'alice' } },
  time: '2026-01-01T00:00:00.000Z',
  ...extra,
});

const withoutRevision = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } });

/**
 * The migration to AccessChange's stored form rewrites every entry already stored, current
 * and logged, past its batches' boundaries, into a form the server reads back as it was
 * written; and `down` gives the old form back, row for row.
 */
describe.each(testEngines())('AccessChange stored-form migration on %s', (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(engine);
  });
  afterAll(async () => {
    await t?.destroy();
  });

  const logged = async (): Promise<KubeObject[]> =>
    ((await t.db.dataSource.query(`SELECT object FROM kv_log WHERE resource = $1 ORDER BY revision`, [RESOURCE])) as Array<{ object: KubeObject }>).map((r) => r.object);

  /** Runs one way of the migration on a runner of its own, released before anything else reads (the embedded engine has one session). */
  const migrate = async (way: 'up' | 'down'): Promise<void> => {
    const runner = t.db.dataSource.createQueryRunner();
    try {
      await new AccessChangeVias1768000000000()[way](runner);
    } finally {
      await runner.release();
    }
  };

  it('packs every stored entry, reads back the same, and unpacks on the way down', async () => {
    // More than one batch (500 names), a deleted entry (in the log only) and one kept as JSON text.
    const names = Array.from({ length: 1203 }, (_, i) => `r${i}-0`);
    await t.store.createMissing(
      RESOURCE,
      names.map((name) => ({ namespace: '', name, object: oldEntry(name) })),
    );
    await t.store.delete({ resource: RESOURCE, namespace: '', name: 'r7-0' });
    const nul = oldEntry('r9999-0', { cause: { ...oldEntry('x').cause as object, user: { username: 'a\u0000b' } } });
    await t.store.create({ resource: RESOURCE, namespace: '', name: 'r9999-0' }, nul);
    const logBefore = await logged();

    await migrate('up');
    const current = await t.store.get({ resource: RESOURCE, namespace: '', name: 'r1000-0' });
    // Stored once per entry: the two lists, each permission pointing at its own; the two that differ only in their resource as one.
    expect(current!.object).toMatchObject({ vias: [via('r1000-0'), [...via('r1000-0'), ...via('other')]], gained: [{ via: 0, resource: 'pods' }, { via: 1, resources: ['secrets', 'configmaps'] }], lost: [{ via: 0 }] });
    expect(withoutRevision(unpackAccessChange(current!.object))).toEqual(oldEntry('r1000-0'));
    const { items } = await t.store.list(RESOURCE, {});
    expect(items).toHaveLength(1203);
    expect(items.every((i) => i.key.name === 'r9999-0' || Array.isArray((i.object as { vias?: unknown }).vias))).toBe(true);
    expect(items.map((i) => withoutRevision(unpackAccessChange(i.object)))).toEqual(items.map((i) => (i.key.name === 'r9999-0' ? nul : oldEntry(i.key.name))));
    // The log too, the deleted entry's rows included; what reads it gets what was written.
    const logAfter = await logged();
    expect(logAfter.filter((o) => !('vias' in o) && !('$json' in o))).toEqual([]);
    expect(logAfter.map(unpackAccessChange)).toEqual(logBefore);

    await migrate('down');
    expect(await logged()).toEqual(logBefore);
    expect(withoutRevision((await t.store.get({ resource: RESOURCE, namespace: '', name: 'r1000-0' }))!.object)).toEqual(oldEntry('r1000-0'));
  });
});
