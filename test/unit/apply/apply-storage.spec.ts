import { createPermissionCheck } from '../../../src/authorization/create-authorization';
import { AdmissionChain } from '../../../src/registry/rest/admission';
import { ContinueTokens } from '../../../src/registry/generic/continue-token';
import { GenericStorage } from '../../../src/registry/generic/generic-storage';
import { Target, WriteOptions } from '../../../src/registry/rest/storage';
import { ChangeFeed } from '../../../src/storage/changefeed/change-feed';
import { ChangeFeedService } from '../../../src/storage/changefeed/change-feed.service';
import { objectKey } from '../../../src/apimachinery/store-key';
import { SYSTEM_USER, UserInfo } from '../../../src/apimachinery/user-info';
import { AuthorizationAttributes, Authorizer } from '../../../src/authorization/authorizer';
import { AuthorizerChain } from '../../../src/authorization/authorizer-chain';
import { roleType } from '../../../src/rbac/kinds/kinds';
import { MemoryStore } from '../../support/memory-store';

/**
 * Apply through the generic storage: a create through apply or PUT needs `create`
 * permission besides the `patch`/`update` the request was authorized with; bad apply
 * bodies are kube's 400s.
 */
describe('apply in the generic storage', () => {
  const RBAC = 'rbac.authorization.platform.io';
  const APPLY = 'application/apply-patch+yaml';
  const bob: UserInfo = { username: 'bob', uid: '', groups: ['system:authenticated'], extra: {} };
  let store: MemoryStore;
  let feed: ChangeFeed;
  let chain: AuthorizerChain;
  let roles: GenericStorage;
  const target = (name: string): Target => ({ type: roleType, groupResource: { group: RBAC, resource: 'roles' }, namespace: 'ns', name });
  const as = (user: UserInfo, extra: Partial<WriteOptions> = {}): WriteOptions => ({ user, dryRun: false, fieldManager: 'tester', ...extra });
  const roleYaml = (verb: string, name = 'r') =>
    Buffer.from(`apiVersion: ${RBAC}/v1\nkind: Role\nmetadata:\n  name: ${name}\nrules:\n- apiGroups: [""]\n  resources: ["pods"]\n  verbs: ["${verb}"]\n`);
  /** An authorizer that allows exactly the given verbs on roles. */
  const allowing = (...verbs: string[]): Authorizer => ({
    type: 'Test',
    name: 'test',
    authorize: (attrs: AuthorizationAttributes) => (verbs.includes(attrs.verb) ? { decision: 'Allow' } : { decision: 'NoOpinion', reason: '' }),
  });

  beforeEach(async () => {
    store = new MemoryStore();
    feed = new ChangeFeed(store, null, { pollIntervalMs: 1000 });
    await feed.start();
    chain = new AuthorizerChain();
    roles = new GenericStorage(roleType, store, new AdmissionChain(), {
      feed: Object.assign(feed, { track: () => undefined }) as unknown as ChangeFeedService,
      continueTokens: new ContinueTokens(Buffer.alloc(32, 7)),
      bookmarkIntervalMs: 60000,
      authorizeCreate: createPermissionCheck(chain),
    });
  });
  afterEach(() => feed.stop());

  it('refuses an apply that would create without create permission, with kube\'s 403', async () => {
    chain.replace([allowing('patch', 'update')]);
    const err = await roles.patch(target('r'), { contentType: APPLY, body: roleYaml('get') }, as(bob)).catch((e) => e);
    expect(err.toStatus()).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: `roles.${RBAC} "r" is forbidden: User "bob" cannot create resource "roles" in API group "${RBAC}" in the namespace "ns"`,
      details: { name: 'r', group: RBAC, kind: 'roles' },
    });
    expect(await store.get(objectKey(roleType, 'ns', 'r'))).toBeNull();
    // A PUT that would create is checked the same way.
    const put = await roles.update(target('r'), { metadata: { name: 'r' }, rules: [] }, as(bob)).catch((e) => e);
    expect(put.code).toBe(403);
  });

  it('lets the same caller apply to an existing object, and create once allowed to', async () => {
    chain.replace([allowing('patch')]);
    await roles.create(target(''), { metadata: { name: 'r', labels: { team: 'a' } } }, as(SYSTEM_USER, { fieldManager: 'admin' }));
    const updated = await roles.patch(target('r'), { contentType: APPLY, body: roleYaml('get') }, as(bob));
    expect(updated.created).toBe(false);
    expect(updated.object.rules).toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]);

    chain.replace([allowing('patch', 'create')]);
    const created = await roles.patch(target('r2'), { contentType: APPLY, body: roleYaml('list', 'r2') }, as(bob));
    expect(created.created).toBe(true);
    expect(created.object.metadata.managedFields).toEqual([
      expect.objectContaining({ manager: 'tester', operation: 'Apply', apiVersion: `${RBAC}/v1`, fieldsType: 'FieldsV1', fieldsV1: { 'f:rules': {} } }),
    ]);
  });

  it('answers bad apply bodies with kube\'s 400s', async () => {
    chain.replace([allowing('patch', 'create')]);
    const apply = (body: string, name = 'r', extra: Partial<WriteOptions> = {}) =>
      roles.patch(target(name), { contentType: APPLY, body: Buffer.from(body) }, as(SYSTEM_USER, extra)).catch((e) => e.toStatus());
    expect(await apply(`apiVersion: ${RBAC}/v1\nkind: ClusterRole\nmetadata: {name: r}\n`)).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: `invalid object type: ${RBAC}/v1, Kind=ClusterRole`,
    });
    expect(await apply('metadata: {name: r}\n')).toMatchObject({ code: 400, message: 'invalid object type: /, Kind=' });
    expect(await apply(`apiVersion: ${RBAC}/v1\nkind: Role\nmetadata:\n  name: r\n  managedFields: []\n`)).toMatchObject({
      code: 400,
      message: 'metadata.managedFields must be nil',
    });
    expect(await apply(`apiVersion: ${RBAC}/v1\nkind: Role\nmetadata: {name: other}\n`)).toMatchObject({
      code: 400,
      message: 'the name of the object (other) does not match the name on the URL (r)',
    });
    expect(await apply(`apiVersion: ${RBAC}/v1\nkind: Role\nmetadata: {name: r, namespace: elsewhere}\n`)).toMatchObject({
      code: 400,
      message: 'the namespace of the provided object does not match the namespace sent on the request',
    });
    expect(await apply(`apiVersion: ${RBAC}/v1\nkind: Role\nmetadata: {name: r}\nrules: nope\n`)).toMatchObject({
      code: 400,
      message: `failed to create typed patch object (ns/r; ${RBAC}/v1, Kind=Role): .rules: expected list, got string`,
    });
    expect(await apply('- a\n- b\n')).toMatchObject({ code: 400, message: expect.stringMatching(/^error decoding YAML: .*cannot unmarshal array/) });
    expect(await apply('a: [\n')).toMatchObject({ code: 400, message: expect.stringMatching(/^error decoding YAML: error converting YAML to JSON: yaml: line/) });
    expect(await apply(`apiVersion: ${RBAC}/v1\nkind: Role\nmetadata: {name: r, uid: abc}\n`)).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on roles.${RBAC} "r": uid mismatch: the provided object specified uid abc, and no existing object was found`,
    });
    expect(await apply(`apiVersion: ${RBAC}/v1\nkind: Role\nmetadata: {name: r}\nbogus: 1\n`, 'r', { fieldValidation: 'Strict' })).toMatchObject({
      code: 400,
      message: 'error strict decoding YAML: unknown field "bogus"',
    });
  });

  it('drops unknown fields with a warning by default, and computes managedFields on a dry run without storing', async () => {
    const warnings: string[] = [];
    const result = await roles.patch(
      target('r'),
      { contentType: APPLY, body: Buffer.from(`apiVersion: ${RBAC}/v1\nkind: Role\nmetadata: {name: r}\nbogus: 1\nrules: []\n`) },
      as(SYSTEM_USER, { dryRun: true, warn: (w) => warnings.push(w) }),
    );
    expect(warnings).toEqual(['unknown field "bogus"']);
    expect(result.created).toBe(true);
    expect(result.object).not.toHaveProperty('bogus');
    expect(result.object.metadata.managedFields?.[0]).toMatchObject({ manager: 'tester', operation: 'Apply', fieldsV1: { 'f:rules': {} } });
    expect(await store.get(objectKey(roleType, 'ns', 'r'))).toBeNull();
  });

  it('reports repeated keys in the apply body as kube\'s YAML strict decoder does', async () => {
    const body = Buffer.from(`apiVersion: ${RBAC}/v1\nkind: Role\nmetadata:\n  name: r\n  name: r\nrules: []\n`);
    const strict = await roles.patch(target('r'), { contentType: APPLY, body }, as(SYSTEM_USER, { fieldValidation: 'Strict' })).catch((e) => e.toStatus());
    expect(strict).toMatchObject({
      code: 400,
      message: 'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 5: key "name" already set in map',
    });
    const warnings: string[] = [];
    const warned = await roles.patch(target('r'), { contentType: APPLY, body }, as(SYSTEM_USER, { warn: (w) => warnings.push(w) }));
    expect(warned.created).toBe(true);
    expect(warnings).toEqual(['line 5: key "name" already set in map']);
  });

  it('records the manager of non-apply writes from fieldManager or the User-Agent', async () => {
    const created = await roles.create(target(''), { metadata: { name: 'r' }, rules: [] }, { user: SYSTEM_USER, dryRun: false, userAgent: 'kubectl/v1.32.4 (linux/amd64) kubernetes/abc' });
    expect(created.object.metadata.managedFields?.map((e) => e.manager)).toEqual(['kubectl']);
    const patched = await roles.patch(
      target('r'),
      { contentType: 'application/merge-patch+json', body: Buffer.from('{"metadata":{"labels":{"a":"b"}}}') },
      { user: SYSTEM_USER, dryRun: false, fieldManager: 'labeler', userAgent: 'kubectl/v1' },
    );
    expect(patched.object.metadata.managedFields?.map((e) => [e.manager, e.operation, e.fieldsV1])).toEqual([
      ['kubectl', 'Update', { 'f:rules': {} }],
      ['labeler', 'Update', { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } }],
    ]);
  });
});
