import { AdmissionChain } from '../../../src/registry/rest/admission';
import { ContinueTokens } from '../../../src/registry/generic/continue-token';
import { GenericStorage } from '../../../src/registry/generic/generic-storage';
import { Target } from '../../../src/registry/rest/storage';
import { parseListOptions } from '../../../src/registry/options/read-options';
import { ChangeFeed } from '../../../src/storage/changefeed/change-feed';
import { ChangeFeedService } from '../../../src/storage/changefeed/change-feed.service';
import { roleType } from '../../../src/rbac/kinds/kinds';
import { SYSTEM_USER } from '../../../src/apimachinery/user-info';
import { MemoryStore } from '../../support/memory-store';

/** The generic storage over an in-memory MVCC store: paging, selectors, versions, finalizers. */
describe('GenericStorage', () => {
  let store: MemoryStore;
  let feed: ChangeFeed;
  let roles: GenericStorage;
  const target = (namespace: string, name = ''): Target => ({ type: roleType, groupResource: { group: roleType.group, resource: 'roles' }, namespace, name });
  const write = { user: SYSTEM_USER, dryRun: false };
  const list = async (namespace: string, query: Record<string, unknown>) => roles.list(target(namespace), { ...parseListOptions(query, roleType), user: SYSTEM_USER });
  const role = (name: string, labels: Record<string, string> = {}) => ({ metadata: { name, labels }, rules: [] });

  beforeEach(async () => {
    store = new MemoryStore();
    feed = new ChangeFeed(store, null, { pollIntervalMs: 1000 });
    await feed.start();
    const feedService = Object.assign(feed, { track: () => undefined }) as unknown as ChangeFeedService;
    roles = new GenericStorage(roleType, store, new AdmissionChain(), {
      feed: feedService,
      continueTokens: new ContinueTokens(Buffer.alloc(32, 7)),
      bookmarkIntervalMs: 60000,
    });
    for (let i = 0; i < 10; i++) await roles.create(target('ns'), role(`r${i}`, { parity: i % 2 ? 'odd' : 'even' }), write);
  });
  afterEach(() => feed.stop());

  it('pages with limit and continue from one snapshot, with remainingItemCount', async () => {
    const first = await list('ns', { limit: '4' });
    expect(first.items.map((i) => i.metadata.name)).toEqual(['r0', 'r1', 'r2', 'r3']);
    expect(first.metadata.remainingItemCount).toBe(6);
    // Changes after the first chunk do not show in later chunks.
    await roles.create(target('ns'), role('r5a'), write);
    await roles.delete(target('ns', 'r9'), write);
    const second = await list('ns', { limit: '4', continue: first.metadata.continue });
    expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    expect(second.items.map((i) => i.metadata.name)).toEqual(['r4', 'r5', 'r6', 'r7']);
    const third = await list('ns', { limit: '4', continue: second.metadata.continue });
    expect(third.items.map((i) => i.metadata.name)).toEqual(['r8', 'r9']);
    expect(third.metadata.continue).toBeUndefined();
    expect(third.metadata.remainingItemCount).toBeUndefined();
  });

  it('filters by label and field selectors and omits remainingItemCount then', async () => {
    const odd = await list('ns', { labelSelector: 'parity=odd', limit: '2' });
    expect(odd.items.map((i) => i.metadata.name)).toEqual(['r1', 'r3']);
    expect(odd.metadata.continue).toBeDefined();
    expect(odd.metadata.remainingItemCount).toBeUndefined();
    const rest = await list('ns', { labelSelector: 'parity=odd', limit: '10', continue: odd.metadata.continue });
    expect(rest.items.map((i) => i.metadata.name)).toEqual(['r5', 'r7', 'r9']);
    const byName = await list('ns', { fieldSelector: 'metadata.name=r4' });
    expect(byName.items.map((i) => i.metadata.name)).toEqual(['r4']);
    await expect(list('ns', { labelSelector: 'a in b' })).rejects.toMatchObject({ code: 400 });
    await expect(list('ns', { fieldSelector: 'spec.x=1' })).rejects.toMatchObject({ code: 400 });
  });

  it('serves Exact lists from history and rejects compacted or bad tokens', async () => {
    const before = await list('ns', {});
    await roles.delete(target('ns', 'r0'), write);
    const exact = await list('ns', { resourceVersion: before.metadata.resourceVersion, resourceVersionMatch: 'Exact' });
    expect(exact.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(exact.items).toHaveLength(10);
    expect((await list('ns', {})).items).toHaveLength(9);
    const page = await list('ns', { limit: '3' });
    await expect(list('ns', { limit: '3', continue: page.metadata.continue + 'x' })).rejects.toMatchObject({ code: 400 });
    await roles.create(target('ns'), role('later'), write);
    await store.compact();
    await expect(list('ns', { limit: '3', continue: page.metadata.continue })).rejects.toMatchObject({ code: 410 });
    await expect(list('ns', { resourceVersion: before.metadata.resourceVersion, resourceVersionMatch: 'Exact' })).rejects.toMatchObject({ code: 410 });
  });

  it('answers 504 with Retry-After for a version from the future', async () => {
    const err = await list('ns', { resourceVersion: '999', resourceVersionMatch: 'NotOlderThan' }).catch((e) => e);
    expect(err).toMatchObject({ code: 504, message: 'Too large resource version', headers: { 'Retry-After': '1' } });
  }, 10000);

  it('keeps an object with finalizers until the last one is removed', async () => {
    await roles.create(target('ns'), { metadata: { name: 'fin', finalizers: ['example.com/hold'] }, rules: [] }, write);
    const deleting = await roles.delete(target('ns', 'fin'), write);
    expect(deleting.body).toMatchObject({ kind: 'Role', metadata: { name: 'fin' } });
    const marked = await roles.get(target('ns', 'fin'));
    expect(marked.metadata.deletionTimestamp).toBeDefined();
    // No new finalizers once deletion started.
    await expect(
      roles.update(target('ns', 'fin'), { ...marked, metadata: { ...marked.metadata, finalizers: ['example.com/hold', 'example.com/more'] } }, write),
    ).rejects.toMatchObject({ code: 422 });
    await roles.update(target('ns', 'fin'), { ...marked, metadata: { ...marked.metadata, finalizers: [] } }, write);
    await expect(roles.get(target('ns', 'fin'))).rejects.toMatchObject({ code: 404 });
    expect(store.log.slice(-2).map((c) => c.type)).toEqual(['MODIFIED', 'DELETED']);
  });
});
