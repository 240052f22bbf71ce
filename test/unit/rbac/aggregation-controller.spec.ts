import { errors } from '../../../src/apimachinery/errors';
import { ResourceRegistry } from '../../../src/registry/resources/registry';
import { AdmissionChain, AdmissionRequest } from '../../../src/registry/rest/admission';
import { ContinueTokens } from '../../../src/registry/generic/continue-token';
import { GenericStorage } from '../../../src/registry/generic/generic-storage';
import { Target } from '../../../src/registry/rest/storage';
import { ChangeFeedService } from '../../../src/storage/changefeed/change-feed.service';
import { SharedInformerFactory } from '../../../src/storage/informer/shared-informer-factory';
import { SYSTEM_USER } from '../../../src/apimachinery/user-info';
import { ClusterRoleAggregationController } from '../../../src/rbac/aggregation/clusterrole-aggregation-controller';
import { clusterRoleType } from '../../../src/rbac/kinds/kinds';
import { storageResource } from '../../../src/apimachinery/store-key';
import type { Database } from '../../../src/storage/engine/database';
import { getEventListeners } from 'node:events';
import { eventually } from '../../support/eventually';
import { MemoryStore } from '../../support/memory-store';

const rule = (resource: string) => ({ verbs: ['get'], apiGroups: [''], resources: [resource] });
const target = (name = ''): Target => ({ type: clusterRoleType, groupResource: { group: clusterRoleType.group, resource: 'clusterroles' }, namespace: '', name });
const write = { user: SYSTEM_USER, dryRun: false };

/** The controller over the generic storage on an in-memory store (embedded engine: always leader). */
describe('ClusterRoleAggregationController', () => {
  let store: MemoryStore;
  let feed: ChangeFeedService;
  let informers: SharedInformerFactory;
  let storage: GenericStorage;
  let controller: ClusterRoleAggregationController;
  let refuse = false;
  const updates: AdmissionRequest[] = [];

  beforeEach(async () => {
    store = new MemoryStore();
    feed = new ChangeFeedService(store, null);
    await feed.start();
    const admission = new AdmissionChain();
    admission.register({
      name: 'recorder',
      admit: async (req) => {
        if (req.operation !== 'UPDATE') return;
        updates.push(req);
        if (refuse) throw errors.forbidden('clusterroles.rbac.authorization.platform.io "agg"', 'refused by the test');
      },
    });
    storage = new GenericStorage(clusterRoleType, store, admission, {
      feed,
      continueTokens: new ContinueTokens(Buffer.alloc(32, 7)),
      bookmarkIntervalMs: 60000,
    });
    const registry = new ResourceRegistry();
    registry.register(clusterRoleType, storage);
    informers = new SharedInformerFactory(store, feed);
    controller = new ClusterRoleAggregationController(registry, informers, { engine: 'pglite' } as Database);
    (controller as any).logger = { error: () => undefined, warn: () => undefined, log: () => undefined };
    refuse = false;
    updates.length = 0;
  });
  afterEach(async () => {
    await controller.beforeApplicationShutdown();
    await informers.stop();
    await feed.stop();
  });

  const rulesOf = async (name: string) => ((await storage.get(target(name), { user: SYSTEM_USER })) as any).rules;

  it('fills an aggregate before start() returns, then writes only when the union changes', async () => {
    await storage.create(target(), { metadata: { name: 'm', labels: { agg: 'true' } }, rules: [rule('pods')] }, write);
    await storage.create(target(), { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg: 'true' } }] } }, write);
    await controller.start();
    expect(controller.isLeader()).toBe(true);
    expect(await rulesOf('agg')).toEqual([rule('pods')]);
    expect(updates.map((u) => [u.options.user.username, u.options.fieldManager])).toEqual([
      ['system:controller:clusterrole-aggregation-controller', 'clusterrole-aggregation-controller'],
    ]);

    // A change that does not affect the union (a label on a non-member) writes nothing.
    await storage.create(target(), { metadata: { name: 'other', labels: { x: 'y' } }, rules: [rule('nodes')] }, write);
    await storage.create(target(), { metadata: { name: 'm2', labels: { agg: 'true' } }, rules: [rule('pods')] }, write);
    // The barrier: a change that does affect the union; once it is written, the two above were handled.
    await storage.update(target('m2'), { metadata: { name: 'm2', labels: { agg: 'true' } }, rules: [rule('secrets')] }, write);
    await eventually(async () => expect(await rulesOf('agg')).toEqual([rule('pods'), rule('secrets')]), 2000);
    // The controller wrote twice: the first fill and the union with secrets, nothing for the two creates.
    expect(updates.filter((u) => u.options.fieldManager === 'clusterrole-aggregation-controller')).toHaveLength(2);
  });

  it('keeps retrying a refused write and aggregates once it is allowed', async () => {
    refuse = true;
    await storage.create(target(), { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg: 'true' } }] } }, write);
    await storage.create(target(), { metadata: { name: 'm', labels: { agg: 'true' } }, rules: [rule('pods')] }, write);
    await controller.start();
    expect(await rulesOf('agg')).toBeUndefined();
    const refused = updates.length;
    expect(refused).toBeGreaterThan(0);
    refuse = false;
    await eventually(async () => expect(await rulesOf('agg')).toEqual([rule('pods')]), 4000);
    expect(updates.length).toBeGreaterThan(refused);
  });

  it('stops promptly', async () => {
    await controller.start();
    const began = Date.now();
    await controller.beforeApplicationShutdown();
    expect(controller.isLeader()).toBe(false);
    expect(Date.now() - began).toBeLessThan(500);
  });

  it('holds nothing per change while it leads: its waits leave no listeners and no timers behind (no growth over many changes)', async () => {
    let lost: AbortSignal | undefined;
    const lead = (controller as any).lead.bind(controller);
    (controller as any).lead = (signal: AbortSignal) => lead((lost = signal));
    await controller.start();
    const feedWaiters = feed.waiting();
    const listenersAfter = async (changes: number, from: number) => {
      for (let i = from; i < from + changes; i++) await storage.create(target(), { metadata: { name: `plain-${i}` }, rules: [rule('pods')] }, write);
      // Every change has reached the controller's informer (and so its handler).
      expect(await informers.informerFor(storageResource(clusterRoleType)).waitForRevision(await store.currentRevision(), 2000)).toBe(true);
      return getEventListeners(lost!, 'abort').length;
    };
    const early = await listenersAfter(20, 0);
    const late = await listenersAfter(300, 20);
    expect(late).toBeLessThanOrEqual(early);
    expect(late).toBeLessThanOrEqual(2);
    expect(feed.waiting()).toBeLessThanOrEqual(feedWaiters + 1);
  });
});
