import { accessChangesOf } from '../../../src/access/access-history';
import { AccessChange, AccessChangeCause } from '../../../src/access/access-change-kind';
import { ReadOnlyStorage } from '../../../src/access/access-change-storage';
import { packAccessChange, unpackAccessChange } from '../../../src/access/access-change-stored-form';
import { PermissionChange } from '../../../src/access/policy-change-types';
import { KubeObject } from '../../../src/apimachinery/types';
import { ResourceStorage, Target } from '../../../src/registry/rest/storage';
import { ChangeRenderer, WatchEvent, WatchStream } from '../../../src/registry/rest/watch';
import { Change } from '../../../src/storage/mvcc/object-store';

const RBAC = 'rbac.authorization.platform.io';
const subject = { kind: 'User', apiGroup: RBAC, name: 'bob' };
const viaRb: PermissionChange['via'] = [{ binding: { kind: 'RoleBinding', namespace: 'a', name: 'b' }, role: { kind: 'ClusterRole', name: 'view' } }];
const viaCrb: PermissionChange['via'] = [{ binding: { kind: 'ClusterRoleBinding', name: 'c' }, role: { kind: 'ClusterRole', name: 'edit' } }];
const perm = (verb: string, resource: string, via: PermissionChange['via'], extra: Partial<PermissionChange> = {}): PermissionChange => ({
  subject,
  namespace: 'a',
  verb,
  apiGroup: '',
  resource,
  ...extra,
  via,
});
const cause: AccessChangeCause = { kind: 'RoleBinding', namespace: 'a', name: 'b', resourceVersion: '42', operation: 'Update', user: { username: 'alice', groups: ['devs'] } };

/** Entries of a diff with gains and losses through two bindings, an except and a guardrail among them. */
function sample(): AccessChange[] {
  const gained = [
    perm('get', 'pods', viaRb),
    perm('list', 'pods', viaRb),
    perm('get', 'secrets', [...viaRb]),
    perm('*', '*', viaCrb, { except: { verbs: ['delete'] }, restrictedByGuardrails: ['no-secrets'] }),
    perm('get', 'configmaps', [...viaRb, ...viaCrb]),
  ];
  const lost = [perm('delete', 'pods', viaCrb, { resourceName: 'x' })];
  const changes = accessChangesOf({ gained, lost }, cause, '2026-01-01T00:00:00.000Z', 'r42');
  for (const c of changes) c.metadata = { ...c.metadata, uid: 'u-1', creationTimestamp: '2026-01-01T00:00:00Z', resourceVersion: '43' };
  return changes;
}

describe('the stored form of AccessChange', () => {
  it('reads back exactly what was recorded, keys in the same order', () => {
    for (const change of sample()) {
      const stored = packAccessChange(change);
      expect(unpackAccessChange(stored)).toEqual(change);
      expect(JSON.stringify(unpackAccessChange(stored))).toBe(JSON.stringify(change));
    }
  });

  it('holds each binding-and-role list once, however many permissions name it', () => {
    const [change] = sample();
    const stored = packAccessChange(change);
    expect(stored.vias).toEqual([viaRb, viaCrb, [...viaRb, ...viaCrb]]);
    expect(stored.gained!.map((p) => p.via)).toEqual([0, 0, 1, 2]);
    expect(stored.lost!.map((p) => p.via)).toEqual([1]);
    // The point of it: a smaller object.
    expect(JSON.stringify(stored).length).toBeLessThan(JSON.stringify(change).length);
  });

  it('holds the permissions next to each other that differ only in their resource as one, and reads them back apart, in order', () => {
    const view = ['pods', 'configmaps', 'services'].map((r) => perm('get', r, viaRb));
    const gained = [...view, perm('get', 'secrets', viaCrb), perm('get', 'events', viaRb), perm('get', 'endpoints', viaRb, { resourceName: 'x' }), perm('list', 'nodes', viaRb)];
    const [change] = accessChangesOf({ gained, lost: [] }, cause, 't', 'r1');
    const stored = packAccessChange(change);
    expect(stored.gained!.map((p) => p.resources ?? p.resource)).toEqual([['pods', 'configmaps', 'services'], 'secrets', 'events', 'endpoints', 'nodes']);
    expect(JSON.stringify(unpackAccessChange(stored))).toBe(JSON.stringify(change));
  });

  it('reads an entry stored before the stored form as it is', () => {
    const [change] = sample();
    const old = JSON.parse(JSON.stringify(change)) as KubeObject;
    expect(unpackAccessChange(old)).toBe(old);
  });

  it('keeps an entry without gains or without losses so', () => {
    const [change] = sample();
    const { lost: _lost, ...onlyGained } = change;
    const stored = packAccessChange(onlyGained as AccessChange);
    expect(stored).not.toHaveProperty('lost');
    expect(unpackAccessChange(stored)).toEqual(onlyGained);
  });
});

describe('ReadOnlyStorage', () => {
  const [change] = sample();
  const stored = packAccessChange(change);
  const target = { name: 'r42-0' } as Target;

  /** A storage holding the one stored entry, whose watch sends it through each of the stream's paths. */
  const inner: ResourceStorage = {
    get: () => Promise.resolve(stored),
    list: () => Promise.resolve({ apiVersion: 'access.platform.io/v1', kind: 'AccessChangeList', metadata: { resourceVersion: '43' }, items: [stored, stored] }),
    watch: (_target, _opts, open) => {
      const stream = open();
      stream.send({ type: 'ADDED', object: stored });
      stream.send({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '44' } } });
      const render: ChangeRenderer = (c, type) => ({ type, object: c.object });
      stream.sendChange({ type: 'DELETED', key: { resource: 'r', namespace: '', name: 'r42-0' }, revision: '45', object: stored, bytes: 0 } as Change, 'DELETED', render);
      return Promise.resolve();
    },
  };

  it('answers get, list and watch in the API form', async () => {
    const storage = new ReadOnlyStorage(inner);
    expect(await storage.get(target, {} as never)).toEqual(change);
    expect((await storage.list(target, {} as never)).items).toEqual([change, change]);
    const events: WatchEvent[] = [];
    const sink = {
      closed: false,
      unresponsive: false,
      signal: new AbortController().signal,
      onClose: () => undefined,
      send: (e: WatchEvent) => events.push(e) > 0,
      sendChange: (c: Change, type: WatchEvent['type'], render: ChangeRenderer) => events.push(render(c, type)) > 0,
      close: () => undefined,
    } as WatchStream;
    await storage.watch(target, {} as never, () => sink);
    expect(events).toEqual([
      { type: 'ADDED', object: change },
      { type: 'BOOKMARK', object: { metadata: { resourceVersion: '44' } } },
      { type: 'DELETED', object: change },
    ]);
  });

  it('serves no writes', () => {
    const storage = new ReadOnlyStorage(inner) as ResourceStorage;
    expect(storage.create).toBeUndefined();
    expect(storage.update).toBeUndefined();
    expect(storage.delete).toBeUndefined();
  });
});
