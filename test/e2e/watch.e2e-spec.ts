import { eventually } from '../support/eventually';
import { startTestServer, TestServer } from '../support/test-server';
import { ChangeFeedService } from '../../src/storage/changefeed/change-feed.service';

const RBAC = '/apis/rbac.authorization.platform.io/v1';
const CR = `${RBAC}/clusterroles`;
const cr = (name: string, labels: Record<string, string> = {}) => ({ metadata: { name, labels }, rules: [] });
const brief = (e: any) => [e.type, e.object.metadata?.name ?? e.object.metadata?.resourceVersion];

describe('watch', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ options: { bookmarkIntervalMs: 300 } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('without a resourceVersion: synthetic ADDED for the current state, then every change in order', async () => {
    await server.admin.post(CR, cr('w-existing', { suite: 'w1' }));
    const watch = await server.admin.stream(`${CR}?watch=1&labelSelector=suite%3Dw1`);
    expect(watch.status).toBe(200);
    await watch.waitFor(1);
    await server.admin.post(CR, cr('w-new', { suite: 'w1' }));
    await server.admin.patch(`${CR}/w-new`, { metadata: { annotations: { a: 'b' } } }, 'application/merge-patch+json');
    await server.admin.delete(`${CR}/w-new`);
    const events = await watch.waitFor(4);
    watch.close();
    expect(events.map(brief)).toEqual([
      ['ADDED', 'w-existing'],
      ['ADDED', 'w-new'],
      ['MODIFIED', 'w-new'],
      ['DELETED', 'w-new'],
    ]);
    expect(events[1].object).toMatchObject({ kind: 'ClusterRole', apiVersion: 'rbac.authorization.platform.io/v1' });
    const rvs = events.slice(1).map((e) => BigInt(e.object.metadata.resourceVersion));
    expect(rvs).toEqual([...rvs].sort((a, b) => (a < b ? -1 : 1)));
  });

  it('from a resourceVersion: only the changes after it, no synthetic events', async () => {
    const created = await server.admin.post(CR, cr('w-from', { suite: 'w2' }));
    await server.admin.patch(`${CR}/w-from`, { metadata: { annotations: { step: '1' } } }, 'application/merge-patch+json');
    const watch = await server.admin.stream(`${CR}?watch=true&labelSelector=suite%3Dw2&resourceVersion=${created.body.metadata.resourceVersion}`);
    const events = await watch.waitFor(1);
    watch.close();
    expect(events.map(brief)).toEqual([['MODIFIED', 'w-from']]);
    expect(events[0].object.metadata.annotations).toEqual({ step: '1' });
  });

  it('resourceVersion=0 also starts with the current state', async () => {
    await server.admin.post(CR, cr('w-zero', { suite: 'w3' }));
    const watch = await server.admin.stream(`${CR}?watch=1&labelSelector=suite%3Dw3&resourceVersion=0`);
    expect((await watch.waitFor(1)).map(brief)).toEqual([['ADDED', 'w-zero']]);
    watch.close();
  });

  it('sendInitialEvents ends the initial state with an annotated BOOKMARK', async () => {
    await server.admin.post(CR, cr('w-init-a', { suite: 'w4' }));
    await server.admin.post(CR, cr('w-init-b', { suite: 'w4' }));
    const list = await server.admin.get(CR);
    const watch = await server.admin.stream(
      `${CR}?watch=1&labelSelector=suite%3Dw4&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
    );
    const events = await watch.waitFor(3);
    watch.close();
    expect(events.slice(0, 2).map(brief)).toEqual([
      ['ADDED', 'w-init-a'],
      ['ADDED', 'w-init-b'],
    ]);
    expect(events[2]).toMatchObject({
      type: 'BOOKMARK',
      object: { kind: 'ClusterRole', apiVersion: 'rbac.authorization.platform.io/v1', metadata: { annotations: { 'platform.io/initial-events-end': 'true' } } },
    });
    expect(BigInt(events[2].object.metadata.resourceVersion)).toBeGreaterThanOrEqual(BigInt(list.body.metadata.resourceVersion));
  });

  it('rejects sendInitialEvents without resourceVersionMatch=NotOlderThan, and other bad options, with 400', async () => {
    for (const q of ['sendInitialEvents=true', 'resourceVersionMatch=NotOlderThan&resourceVersion=1', 'labelSelector=a%20in%20b', 'resourceVersion=abc', 'timeoutSeconds=soon']) {
      const res = await server.admin.get(`${CR}?watch=1&${q}`);
      expect({ q, status: res.status, kind: res.body?.kind }).toEqual({ q, status: 400, kind: 'Status' });
    }
  });

  it('a selector watch sees objects leave (DELETED) and enter (ADDED) the selection', async () => {
    await server.admin.post(CR, cr('w-sel', { suite: 'w5', tier: 'a' }));
    const watch = await server.admin.stream(`${CR}?watch=1&labelSelector=tier%3Da`);
    await watch.waitFor(1);
    await server.admin.patch(`${CR}/w-sel`, { metadata: { labels: { tier: 'b' } } }, 'application/merge-patch+json');
    await server.admin.patch(`${CR}/w-sel`, { metadata: { annotations: { x: 'y' } } }, 'application/merge-patch+json');
    await server.admin.patch(`${CR}/w-sel`, { metadata: { labels: { tier: 'a' } } }, 'application/merge-patch+json');
    const events = await watch.waitFor(3);
    watch.close();
    expect(events.map(brief)).toEqual([
      ['ADDED', 'w-sel'],
      ['DELETED', 'w-sel'],
      ['ADDED', 'w-sel'],
    ]);
  });

  it('an object leaving a label selection is DELETED with its content as it matched, at the revision of the change', async () => {
    await server.admin.post(CR, { ...cr('w-leave', { suite: 'w7', tier: 'a' }), rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
    const watch = await server.admin.stream(`${CR}?watch=1&labelSelector=suite%3Dw7,tier%3Da`);
    const [added] = await watch.waitFor(1);
    const moved = await server.admin.patch(
      `${CR}/w-leave`,
      { metadata: { labels: { tier: 'b' }, annotations: { moved: 'yes' } }, rules: [] },
      'application/merge-patch+json',
    );
    expect(moved.status).toBe(200);
    const [, deleted] = await watch.waitFor(2);
    watch.close();
    expect(deleted.type).toBe('DELETED');
    expect(deleted.object).toEqual({ ...added.object, metadata: { ...added.object.metadata, resourceVersion: moved.body.metadata.resourceVersion } });
    expect(deleted.object.metadata.labels).toEqual({ suite: 'w7', tier: 'a' });
  });

  it('an object leaving a field selection is DELETED with its content as it matched, at the revision of the change', async () => {
    const created = await server.admin.post('/api/v1/nodes', { metadata: { name: 'w-node', labels: { suite: 'w8' } } });
    expect(created.status).toBe(201);
    const watch = await server.admin.stream(
      `/api/v1/nodes?watch=1&labelSelector=suite%3Dw8&fieldSelector=spec.unschedulable%3Dfalse&resourceVersion=${created.body.metadata.resourceVersion}`,
    );
    const cordoned = await server.admin.patch(
      '/api/v1/nodes/w-node',
      { metadata: { labels: { cordoned: 'true' } }, spec: { unschedulable: true } },
      'application/merge-patch+json',
    );
    expect(cordoned.status).toBe(200);
    const [deleted] = await watch.waitFor(1);
    watch.close();
    expect(deleted).toEqual({
      type: 'DELETED',
      object: { ...created.body, metadata: { ...created.body.metadata, resourceVersion: cordoned.body.metadata.resourceVersion } },
    });
    expect(deleted.object.spec?.unschedulable).toBeUndefined();
  });

  it('watches one object by name, in a namespace', async () => {
    const ns = await server.admin.post('/api/v1/namespaces', { metadata: { name: 'watch-ns' } });
    expect(ns.status).toBe(201);
    const roles = `${RBAC}/namespaces/watch-ns/roles`;
    const watch = await server.admin.stream(`${roles}?watch=1&fieldSelector=metadata.name%3Done`);
    await server.admin.post(roles, { metadata: { name: 'other' }, rules: [] });
    await server.admin.post(roles, { metadata: { name: 'one' }, rules: [] });
    await server.admin.post(`${RBAC}/namespaces/default/roles`, { metadata: { name: 'one' }, rules: [] });
    // The barrier: a change the watch does see, written after the ones it must not see.
    await server.admin.patch(`${roles}/one`, { metadata: { labels: { barrier: 'y' } } }, 'application/merge-patch+json');
    const events = await watch.waitFor(2);
    watch.close();
    expect(watch.events.map(brief)).toEqual([
      ['ADDED', 'one'],
      ['MODIFIED', 'one'],
    ]);
    expect(events[0].object.metadata.namespace).toBe('watch-ns');
  });

  it('sends periodic BOOKMARKs when asked and ends at timeoutSeconds', async () => {
    const watch = await server.admin.stream(`${CR}?watch=1&labelSelector=suite%3Dnone&allowWatchBookmarks=true&timeoutSeconds=1`);
    await watch.ended;
    expect(watch.events.length).toBeGreaterThanOrEqual(1);
    for (const e of watch.events) {
      expect(e.type).toBe('BOOKMARK');
      expect(e.object.metadata.resourceVersion).toMatch(/^\d+$/);
    }
  });

  it('hands every write to many watches at the head once each, in order, and holds nothing of them once they go', async () => {
    const feed = server.running.app.get(ChangeFeedService);
    const subscribedBefore = feed.subscribed();
    const head = (await server.admin.get(`${CR}?limit=1`)).body.metadata.resourceVersion;
    const watches = await Promise.all(Array.from({ length: 20 }, () => server.admin.stream(`${CR}?watch=1&labelSelector=suite%3Dw-many&resourceVersion=${head}`)));
    await eventually(() => expect(feed.subscribed()).toBe(subscribedBefore + 20));
    for (const name of ['many-a', 'many-b', 'many-c']) await server.admin.post(CR, cr(name, { suite: 'w-many' }));
    for (const watch of watches) expect((await watch.waitFor(3)).map(brief)).toEqual([['ADDED', 'many-a'], ['ADDED', 'many-b'], ['ADDED', 'many-c']]);
    watches.forEach((watch) => watch.close());
    await eventually(() => expect(feed.subscribed()).toBe(subscribedBefore));
    expect(watches.every((watch) => watch.events.length === 3)).toBe(true);
  });

  it('sends BOOKMARKs between events at the head, each at the revision of the last change it passed', async () => {
    const watch = await server.admin.stream(`${CR}?watch=1&labelSelector=suite%3Dw-marks&allowWatchBookmarks=true`);
    const created = await server.admin.post(CR, cr('marked', { suite: 'w-marks' }));
    await eventually(() => expect(watch.events.filter((e) => e.type === 'BOOKMARK' && BigInt(e.object.metadata.resourceVersion) >= BigInt(created.body.metadata.resourceVersion)).length).toBeGreaterThanOrEqual(1), 5000);
    watch.close();
    const added = watch.events.findIndex((e) => e.type === 'ADDED' && e.object.metadata.name === 'marked');
    expect(added).toBeGreaterThanOrEqual(0);
    for (const e of watch.events.slice(added + 1).filter((e) => e.type === 'BOOKMARK')) {
      expect(BigInt(e.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(BigInt(created.body.metadata.resourceVersion));
    }
  });

  it('reports deletion of an object with finalizers as MODIFIED, then DELETED when the last finalizer goes', async () => {
    const created = await server.admin.post(CR, { metadata: { name: 'w-fin', labels: { suite: 'w6' }, finalizers: ['example.com/keep'] }, rules: [] });
    const watch = await server.admin.stream(`${CR}?watch=1&labelSelector=suite%3Dw6&resourceVersion=${created.body.metadata.resourceVersion}`);
    const del = await server.admin.delete(`${CR}/w-fin`);
    expect(del.status).toBe(200);
    expect(del.body.metadata.deletionTimestamp).toBeDefined();
    expect((await server.admin.get(`${CR}/w-fin`)).status).toBe(200);
    const adding = await server.admin.patch(`${CR}/w-fin`, { metadata: { finalizers: ['example.com/keep', 'example.com/more'] } }, 'application/merge-patch+json');
    expect(adding.status).toBe(422);
    await server.admin.patch(`${CR}/w-fin`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    const events = await watch.waitFor(2);
    watch.close();
    expect(events.map(brief)).toEqual([
      ['MODIFIED', 'w-fin'],
      ['DELETED', 'w-fin'],
    ]);
    expect((await server.admin.get(`${CR}/w-fin`)).status).toBe(404);
  });

  it('ends cleanly when the server shuts down', async () => {
    const other = await startTestServer();
    const watch = await other.admin.stream(`/api/v1/namespaces?watch=1`);
    await watch.waitFor(1);
    await other.close();
    await expect(watch.ended).resolves.toBeUndefined();
  });
});

describe('resource versions and chunked lists over HTTP', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ options: { historyWindowSeconds: 1 } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('pages a list from one snapshot and keeps its resourceVersion', async () => {
    for (let i = 0; i < 5; i++) await server.admin.post(CR, cr(`page-${i}`, { suite: 'p' }));
    const first = await server.admin.get(`${CR}?limit=2`);
    expect(first.body.items).toHaveLength(2);
    expect(first.body.metadata.continue).toBeTruthy();
    expect(first.body.metadata.remainingItemCount).toBeGreaterThan(0);
    await server.admin.post(CR, cr('aaa-late'));
    const names: string[] = first.body.items.map((i: any) => i.metadata.name);
    let token = first.body.metadata.continue;
    while (token) {
      const next = await server.admin.get(`${CR}?limit=2&continue=${encodeURIComponent(token)}`);
      expect(next.status).toBe(200);
      expect(next.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
      names.push(...next.body.items.map((i: any) => i.metadata.name));
      token = next.body.metadata.continue;
    }
    expect(names).not.toContain('aaa-late');
    expect(names).toEqual(expect.arrayContaining(['page-0', 'page-4']));
  });

  it('rejects a malformed continue token (400) and a continue with a resourceVersion (400)', async () => {
    expect((await server.admin.get(`${CR}?limit=2&continue=garbage`)).status).toBe(400);
    const first = await server.admin.get(`${CR}?limit=1`);
    const res = await server.admin.get(`${CR}?limit=1&resourceVersion=5&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('specifying resource version is not allowed when using continue');
  });

  it('answers 504 Too large resource version with Retry-After for a future version', async () => {
    const res = await server.admin.get(`${CR}?resourceVersion=99999999&resourceVersionMatch=NotOlderThan`);
    expect(res.status).toBe(504);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toMatchObject({ kind: 'Status', code: 504, message: 'Too large resource version' });
  });

  it('expires history beyond the window: 410 for Exact lists, continue tokens and watches', async () => {
    const created = await server.admin.post(CR, cr('old-one'));
    const rv = created.body.metadata.resourceVersion;
    const page = await server.admin.get(`${CR}?limit=1`);
    await server.admin.patch(`${CR}/old-one`, { metadata: { labels: { v: '2' } } }, 'application/merge-patch+json');
    await server.admin.patch(`${CR}/page-0`, { metadata: { labels: { v: '2' } } }, 'application/merge-patch+json');
    // Until the page's revision is compacted too (controllers' writes, access history among them, may follow the create).
    await eventually(async () => {
      for (const at of [rv, page.body.metadata.resourceVersion]) {
        const exact = await server.admin.get(`${CR}?resourceVersion=${at}&resourceVersionMatch=Exact`);
        expect(exact.status).toBe(410);
      }
    }, 10000, 250);
    const expired = await server.admin.get(`${CR}?limit=1&continue=${encodeURIComponent(page.body.metadata.continue)}`);
    expect(expired.status).toBe(410);
    expect(expired.body).toMatchObject({ reason: 'Expired' });
    expect(expired.body.message).toContain('The provided continue parameter is too old');
    const watch = await server.admin.stream(`${CR}?watch=1&resourceVersion=${rv}`);
    const [event] = await watch.waitFor(1);
    watch.close();
    expect(event).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
  });

  it('serves an Exact list at a revision inside the window', async () => {
    const before = await server.admin.get(CR);
    await server.admin.post(CR, cr('exact-later'));
    const exact = await server.admin.get(`${CR}?resourceVersion=${before.body.metadata.resourceVersion}&resourceVersionMatch=Exact`);
    expect(exact.status).toBe(200);
    expect(exact.body.metadata.resourceVersion).toBe(before.body.metadata.resourceVersion);
    expect(exact.body.items.map((i: any) => i.metadata.name)).not.toContain('exact-later');
  });
});
