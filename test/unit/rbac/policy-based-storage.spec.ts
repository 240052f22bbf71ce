import { AdmissionChain, AdmissionRequest } from '../../../src/registry/rest/admission';
import { ContinueTokens } from '../../../src/registry/generic/continue-token';
import { GenericStorage } from '../../../src/registry/generic/generic-storage';
import { Target, WriteOptions } from '../../../src/registry/rest/storage';
import { everything, parseGetOptions } from '../../../src/registry/options/read-options';
import { errors } from '../../../src/apimachinery/errors';
import { objectKey } from '../../../src/apimachinery/store-key';
import { SYSTEM_USER } from '../../../src/apimachinery/user-info';
import { ChangeFeed } from '../../../src/storage/changefeed/change-feed';
import { ChangeFeedService } from '../../../src/storage/changefeed/change-feed.service';
import { roleType } from '../../../src/rbac/kinds/kinds';
import { PolicyBasedStorage } from '../../../src/rbac/escalation/policy-based-storage';
import { MemoryStore } from '../../support/memory-store';

/**
 * The policy-based storage (the wrapper of the RBAC kinds' storages that runs the
 * escalation check): every create, update, patch and apply passes the check once, on the
 * object as it would be stored, after the kind's validation and the admission chain;
 * reads and deletes do not; a refusal writes nothing.
 */
describe('PolicyBasedStorage', () => {
  const RBAC = 'rbac.authorization.platform.io';
  let store: MemoryStore;
  let feed: ChangeFeed;
  let roles: PolicyBasedStorage;
  /** What ran, in order: the admission chain's plugin ('admission') and the wrapper's check. */
  let calls: Array<[string, string, string]>;
  let refuse: boolean;
  const target = (name = ''): Target => ({ type: roleType, groupResource: { group: RBAC, resource: 'roles' }, namespace: 'ns', name });
  const write = (extra: Partial<WriteOptions> = {}): WriteOptions => ({ user: SYSTEM_USER, dryRun: false, fieldManager: 'tester', ...extra });
  const role = (name: string, verb = 'get') => ({ metadata: { name }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: [verb] }] });
  const checks = () => calls.filter(([who]) => who === 'check').map(([, op, verbs]) => `${op} ${verbs}`);
  const verbsOf = (req: AdmissionRequest) => ((req.object as { rules?: Array<{ verbs: string[] }> }).rules ?? []).flatMap((r) => r.verbs).join(',');

  beforeEach(async () => {
    store = new MemoryStore();
    feed = new ChangeFeed(store, null, { pollIntervalMs: 1000 });
    await feed.start();
    calls = [];
    refuse = false;
    const admission = new AdmissionChain(['NamespaceLifecycle']);
    admission.register({ name: 'NamespaceLifecycle', admit: async (req) => void calls.push(['admission', req.operation, verbsOf(req)]) });
    const generic = new GenericStorage(roleType, store, admission, {
      feed: Object.assign(feed, { track: () => undefined }) as unknown as ChangeFeedService,
      continueTokens: new ContinueTokens(Buffer.alloc(32, 7)),
      bookmarkIntervalMs: 60000,
    });
    roles = new PolicyBasedStorage(generic, async (req) => {
      calls.push(['check', req.operation, verbsOf(req)]);
      if (refuse) throw errors.forbiddenResource(req.target.groupResource, req.target.name, 'refused by the test');
    });
  });
  afterEach(() => feed.stop());

  it('checks a create after the admission chain, on the object as it would be stored', async () => {
    await roles.create(target(), role('r', 'list'), write());
    expect(calls).toEqual([
      ['admission', 'CREATE', 'list'],
      ['check', 'CREATE', 'list'],
    ]);
    expect((await store.get(objectKey(roleType, 'ns', 'r')))?.object.metadata.name).toBe('r');
  });

  it('checks update, each patch type and apply once, with the patched object, and the update that creates as CREATE', async () => {
    await roles.create(target(), role('r'), write());
    calls = [];
    await roles.update(target('r'), role('r', 'watch'), write());
    await roles.patch(target('r'), { contentType: 'application/merge-patch+json', body: Buffer.from('{"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["list"]}]}') }, write());
    await roles.patch(target('r'), { contentType: 'application/json-patch+json', body: Buffer.from('[{"op":"replace","path":"/rules/0/verbs","value":["create"]}]') }, write());
    await roles.patch(target('r'), { contentType: 'application/strategic-merge-patch+json', body: Buffer.from('{"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["delete"]}]}') }, write());
    const applied = Buffer.from(`apiVersion: ${RBAC}/v1\nkind: Role\nmetadata:\n  name: a\nrules:\n- apiGroups: [""]\n  resources: ["pods"]\n  verbs: ["patch"]\n`);
    await roles.patch(target('a'), { contentType: 'application/apply-patch+yaml', body: applied }, write({ fieldManager: 'applier' }));
    expect(checks()).toEqual(['UPDATE watch', 'UPDATE list', 'UPDATE create', 'UPDATE delete', 'CREATE patch']);
  });

  it('a refusal is the response and nothing is written; dry runs are checked too', async () => {
    refuse = true;
    const err = await roles.create(target(), role('r'), write()).catch((e) => e);
    expect(err.toStatus()).toMatchObject({ code: 403, reason: 'Forbidden', message: `roles.${RBAC} "r" is forbidden: refused by the test` });
    expect(await store.get(objectKey(roleType, 'ns', 'r'))).toBeNull();
    await expect(roles.create(target(), role('d'), write({ dryRun: true }))).rejects.toMatchObject({ code: 403 });
    expect(checks()).toEqual(['CREATE get', 'CREATE get']);
  });

  it('an invalid object is refused by validation before the check runs', async () => {
    const err = await roles.create(target(), { metadata: { name: 'bad' }, rules: [{ resources: ['pods'] }] }, write()).catch((e) => e);
    expect(err.toStatus()).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(calls).toEqual([]);
  });

  it('reads and deletes pass through unchecked', async () => {
    await roles.create(target(), role('r'), write());
    calls = [];
    refuse = true;
    expect((await roles.get(target('r'), { ...parseGetOptions({}), user: SYSTEM_USER })).metadata.name).toBe('r');
    expect((await roles.list(target(), { ...everything(roleType), user: SYSTEM_USER })).items.map((i) => i.metadata.name)).toEqual(['r']);
    await roles.delete(target('r'), write());
    expect(await store.get(objectKey(roleType, 'ns', 'r'))).toBeNull();
    await roles.create(target(), role('s'), write()).catch(() => undefined);
    expect(calls.filter(([, op]) => op === 'DELETE')).toEqual([['admission', 'DELETE', 'get']]);
    expect(checks()).toEqual(['CREATE get']);
  });

  it('keeps a validation the caller passed, after its own check', async () => {
    const order: string[] = [];
    roles = new PolicyBasedStorage(
      new GenericStorage(roleType, store, new AdmissionChain([]), {
        feed: Object.assign(feed, { track: () => undefined }) as unknown as ChangeFeedService,
        continueTokens: new ContinueTokens(Buffer.alloc(32, 7)),
        bookmarkIntervalMs: 60000,
      }),
      async () => void order.push('policy'),
    );
    await roles.create(target(), role('r'), write({ validate: async () => void order.push('caller') }));
    expect(order).toEqual(['policy', 'caller']);
  });
});
