import { eventually } from '../support/eventually';
import { ClientIdentity } from '../support/https-client';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * Time-bound bindings through the real server: the window annotations refused on every
 * write path when malformed, bindings that start and stop granting on their own (no write
 * in between) in real requests and every review, escalation checks that do not count a
 * caller's expired binding, and the binding-expiry controller (retention 60 s here, so a
 * binding whose valid-until is about a minute ago is deleted within seconds).
 */
const GROUP = 'rbac.authorization.platform.io';
const RBAC = `/apis/${GROUP}/v1`;
const ACCESS = '/apis/access.platform.io/v1';
const AUTHZ = '/apis/authorization.platform.io/v1';
const NS = 'timebound';
const VALID_FROM = `${GROUP}/valid-from`;
const VALID_UNTIL = `${GROUP}/valid-until`;
const RETENTION_MS = 60_000;

const userSubject = (name: string) => ({ kind: 'User', apiGroup: GROUP, name });
const clusterRoleRef = (name: string) => ({ apiGroup: GROUP, kind: 'ClusterRole', name });
/** An RFC 3339 timestamp on a whole second, not before `ms`. */
const rfc3339 = (ms: number) => new Date(Math.ceil(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

function binding(name: string, user: string, annotations: Record<string, string>, role = 'configmap-reader') {
  return { apiVersion: `${GROUP}/v1`, kind: 'RoleBinding', metadata: { name, namespace: NS, annotations }, roleRef: clusterRoleRef(role), subjects: [userSubject(user)] };
}

describe('time-bound bindings', () => {
  let server: TestServer;
  const identities = new Map<string, ClientIdentity>();
  // Issuing a certificate costs a key pair: one per user.
  const as = (user: string): ClientIdentity => identities.get(user) ?? identities.set(user, server.certFor(user)).get(user)!;
  const listConfigMaps = (user: string) => server.anonymous.get(`/api/v1/namespaces/${NS}/configmaps`, { as: as(user) });
  const sar = async (user: string) =>
    (await server.admin.post(`${AUTHZ}/subjectaccessreviews`, { spec: { user, resourceAttributes: { namespace: NS, verb: 'list', resource: 'configmaps' } } })).body.status
      .allowed as boolean;
  const selfReview = async (user: string) =>
    (await server.anonymous.post(`${AUTHZ}/selfsubjectaccessreviews`, { spec: { resourceAttributes: { namespace: NS, verb: 'list', resource: 'configmaps' } } }, { as: as(user) }))
      .body.status.allowed as boolean;
  const rulesReview = async (user: string) =>
    (await server.anonymous.post(`${AUTHZ}/selfsubjectrulesreviews`, { spec: { namespace: NS } }, { as: as(user) })).body.status.resourceRules.some(
      (r: { resources?: string[] }) => r.resources?.includes('configmaps'),
    ) as boolean;
  const whoCan = async () =>
    (await server.admin.post(`${ACCESS}/resourceaccessreviews`, { spec: { resourceAttributes: { namespace: NS, verb: 'list', resource: 'configmaps' } } })).body.status
      .users as string[];
  const explain = async (user: string) =>
    (await server.admin.post(`${ACCESS}/accessexplanations`, { spec: { user, resourceAttributes: { namespace: NS, verb: 'list', resource: 'configmaps' } } })).body.status;

  /** Every place a grant shows, for one user: all true or all false when the binding is in or out of its window. */
  async function grants(user: string) {
    // Asked together, so all answers fall on the same side of a window's edge 2 s away.
    const [request, sarAllowed, selfReviewAllowed, rulesReviewAllowed, users] = await Promise.all([listConfigMaps(user), sar(user), selfReview(user), rulesReview(user), whoCan()]);
    return { request: request.status === 200, sar: sarAllowed, selfReview: selfReviewAllowed, rulesReview: rulesReviewAllowed, whoCan: users.includes(user) };
  }
  const ALL = { request: true, sar: true, selfReview: true, rulesReview: true, whoCan: true };
  const NONE = { request: false, sar: false, selfReview: false, rulesReview: false, whoCan: false };

  beforeAll(async () => {
    server = await startTestServer({ options: { expiredBindingRetentionMs: RETENTION_MS } });
    expect((await server.admin.post('/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
    for (const [name, resources, verbs] of [
      ['configmap-reader', ['configmaps'], ['get', 'list']],
      ['secret-reader', ['secrets'], ['get', 'list']],
      ['binder', ['rolebindings'], ['create']],
    ] as const) {
      const apiGroups = name === 'binder' ? [GROUP] : [''];
      expect((await server.admin.post(`${RBAC}/clusterroles`, { metadata: { name }, rules: [{ apiGroups, resources, verbs }] })).status).toBe(201);
    }
  });

  afterAll(async () => {
    await server?.close();
  });

  describe('validation on every write path', () => {
    const path = `${RBAC}/namespaces/${NS}/rolebindings`;
    const field = (key: string) => `metadata.annotations[${key}]`;
    const NOT_RFC3339 = 'must be an RFC 3339 timestamp (e.g. 2006-01-02T15:04:05Z)';

    function expectInvalid(res: { status: number; body: any }, name: string, key: string, value: string, detail: string) {
      const message = `Invalid value: ${JSON.stringify(value)}: ${detail}`;
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        reason: 'Invalid',
        code: 422,
        message: `RoleBinding.${GROUP} "${name}" is invalid: ${field(key)}: ${message}`,
        details: { name, group: GROUP, kind: 'RoleBinding', causes: [{ reason: 'FieldValueInvalid', message, field: field(key) }] },
      });
    }

    beforeAll(async () => {
      expect((await server.admin.post(path, binding('existing', 'nobody', {}))).status).toBe(201);
    });

    it('refuses a timestamp that is not RFC 3339 on create, dry run and apply', async () => {
      expectInvalid(await server.admin.post(path, binding('bad', 'nobody', { [VALID_UNTIL]: 'tomorrow' })), 'bad', VALID_UNTIL, 'tomorrow', NOT_RFC3339);
      expectInvalid(await server.admin.post(`${path}?dryRun=All`, binding('bad', 'nobody', { [VALID_FROM]: '2026-01-01' })), 'bad', VALID_FROM, '2026-01-01', NOT_RFC3339);
      const applied = await server.admin.patch(`${path}/bad?fieldManager=test`, binding('bad', 'nobody', { [VALID_UNTIL]: '2026-01-01T10:00:00' }), 'application/apply-patch+yaml');
      expectInvalid(applied, 'bad', VALID_UNTIL, '2026-01-01T10:00:00', NOT_RFC3339);
      expect((await server.admin.get(`${path}/bad`)).status).toBe(404);
    });

    it('refuses one on update and every patch type, leaving the binding as it was', async () => {
      const current = (await server.admin.get(`${path}/existing`)).body;
      const bad = { [VALID_UNTIL]: 'soon' };
      expectInvalid(await server.admin.put(`${path}/existing`, { ...current, metadata: { ...current.metadata, annotations: bad } }), 'existing', VALID_UNTIL, 'soon', NOT_RFC3339);
      expectInvalid(await server.admin.patch(`${path}/existing`, { metadata: { annotations: bad } }, 'application/merge-patch+json'), 'existing', VALID_UNTIL, 'soon', NOT_RFC3339);
      expectInvalid(await server.admin.patch(`${path}/existing`, { metadata: { annotations: bad } }, 'application/strategic-merge-patch+json'), 'existing', VALID_UNTIL, 'soon', NOT_RFC3339);
      expectInvalid(
        await server.admin.patch(`${path}/existing`, [{ op: 'add', path: '/metadata/annotations', value: bad }], 'application/json-patch+json'),
        'existing',
        VALID_UNTIL,
        'soon',
        NOT_RFC3339,
      );
      expectInvalid(
        await server.admin.patch(`${path}/existing?fieldManager=test`, binding('existing', 'nobody', bad), 'application/apply-patch+yaml'),
        'existing',
        VALID_UNTIL,
        'soon',
        NOT_RFC3339,
      );
      expect((await server.admin.get(`${path}/existing`)).body.metadata.annotations ?? {}).toEqual({});
    });

    it('refuses valid-from not before valid-until, comparing instants across offsets', async () => {
      const window = { [VALID_FROM]: '2030-01-01T12:00:00+02:00', [VALID_UNTIL]: '2030-01-01T10:00:00Z' };
      const detail = `must be after ${VALID_FROM}`;
      expectInvalid(await server.admin.post(path, binding('backwards', 'nobody', window)), 'backwards', VALID_UNTIL, window[VALID_UNTIL], detail);
      expectInvalid(await server.admin.patch(`${path}/existing`, { metadata: { annotations: window } }, 'application/merge-patch+json'), 'existing', VALID_UNTIL, window[VALID_UNTIL], detail);
      const fine = { [VALID_FROM]: '2030-01-01T12:00:00+02:00', [VALID_UNTIL]: '2030-01-01T10:00:01Z' };
      expect((await server.admin.patch(`${path}/existing?dryRun=All`, { metadata: { annotations: fine } }, 'application/merge-patch+json')).status).toBe(200);
    });

    it('applies to ClusterRoleBindings too', async () => {
      const res = await server.admin.post(`${RBAC}/clusterrolebindings`, {
        metadata: { name: 'bad-window', annotations: { [VALID_FROM]: 'now' } },
        roleRef: clusterRoleRef('configmap-reader'),
        subjects: [userSubject('nobody')],
      });
      expect(res.status).toBe(422);
      expect(res.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', message: `Invalid value: "now": ${NOT_RFC3339}`, field: field(VALID_FROM) }]);
    });
  });

  describe('decisions at decision time', () => {
    it('a binding valid from now+4 s grants nothing before and everything after, with no write in between', async () => {
      // Seconds-precision: at least 3 s ahead, room for the checks before it on a loaded machine.
      const validFrom = rfc3339(Date.now() + 4000);
      const created = await server.admin.post(`${RBAC}/namespaces/${NS}/rolebindings`, binding('starts-soon', 'ann', { [VALID_FROM]: validFrom }));
      expect(created.status).toBe(201);
      // Once the explanation names it, the policy index holds it: the denials below are the window's.
      await eventually(async () => {
        expect((await explain('ann')).unusableBindings).toEqual([
          {
            binding: { kind: 'RoleBinding', namespace: NS, name: 'starts-soon' },
            role: { kind: 'ClusterRole', name: 'configmap-reader' },
            reason: `the binding is not valid before ${validFrom}`,
            validFrom,
          },
        ]);
      }, 1500);
      const before = await grants('ann');
      expect(Date.now()).toBeLessThan(Date.parse(validFrom));
      expect(before).toEqual(NONE);
      await eventually(async () => expect(await grants('ann')).toEqual(ALL), 8000);
      expect((await server.admin.get(`${RBAC}/namespaces/${NS}/rolebindings/starts-soon`)).body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
    });

    it('a binding valid until now+2 s stops granting, and the explanation names it with its window', async () => {
      const validUntil = rfc3339(Date.now() + 2000);
      const created = await server.admin.post(`${RBAC}/namespaces/${NS}/rolebindings`, binding('ends-soon', 'ben', { [VALID_UNTIL]: validUntil }));
      expect(created.status).toBe(201);
      await eventually(async () => expect(await grants('ben')).toEqual(ALL), 1500);
      await eventually(async () => expect(await grants('ben')).toEqual(NONE), 5000);
      const denied = await listConfigMaps('ben');
      expect(denied.body.message).toBe(`configmaps is forbidden: User "ben" cannot list resource "configmaps" in API group "" in the namespace "${NS}"`);
      const explanation = await explain('ben');
      expect(explanation).toMatchObject({ allowed: false, grants: [] });
      expect(explanation.unusableBindings).toEqual([
        {
          binding: { kind: 'RoleBinding', namespace: NS, name: 'ends-soon' },
          role: { kind: 'ClusterRole', name: 'configmap-reader' },
          reason: `the binding expired at ${validUntil}`,
          validUntil,
        },
      ]);
      expect((await server.admin.get(`${RBAC}/namespaces/${NS}/rolebindings/ends-soon`)).body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
    });
  });

  it('escalation checks do not count permissions held through an expired or not yet valid binding', async () => {
    const crb = (name: string, user: string, role: string, annotations: Record<string, string> = {}) => ({
      metadata: { name, annotations },
      roleRef: clusterRoleRef(role),
      subjects: [userSubject(user)],
    });
    const hour = 3600_000;
    for (const body of [
      crb('binders', 'carl', 'binder'),
      crb('binders-2', 'dina', 'binder'),
      crb('binders-3', 'eve', 'binder'),
      crb('carl-secrets', 'carl', 'secret-reader', { [VALID_UNTIL]: rfc3339(Date.now() + hour) }),
      crb('dina-secrets', 'dina', 'secret-reader', { [VALID_UNTIL]: rfc3339(Date.now() - 1000) }),
      crb('eve-secrets', 'eve', 'secret-reader', { [VALID_FROM]: rfc3339(Date.now() + hour) }),
    ]) {
      expect((await server.admin.post(`${RBAC}/clusterrolebindings`, body)).status).toBe(201);
    }
    const grantSecrets = (user: string) =>
      server.anonymous.post(`${RBAC}/namespaces/${NS}/rolebindings`, binding(`from-${user}`, 'someone', {}, 'secret-reader'), { as: as(user) });
    // carl holds the permissions now, so he may grant them; dina's have expired and eve's have not started.
    await eventually(async () => expect((await grantSecrets('carl')).status).toBe(201));
    for (const user of ['dina', 'eve']) {
      const refused = await grantSecrets(user);
      expect(refused.status).toBe(403);
      expect(refused.body.message).toContain(`rolebindings.${GROUP} "from-${user}" is forbidden: user "${user}" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:`);
    }
  });

  it('the binding-expiry controller deletes a binding once the retention has passed its valid-until, and counts it', async () => {
    const path = `${RBAC}/namespaces/${NS}/rolebindings`;
    // Expired 58 s ago: due for deletion 2 s from now. The other one is due in a minute.
    expect((await server.admin.post(path, binding('long-expired', 'fred', { [VALID_UNTIL]: rfc3339(Date.now() - RETENTION_MS + 2000) }))).status).toBe(201);
    expect((await server.admin.post(path, binding('recently-expired', 'fred', { [VALID_UNTIL]: rfc3339(Date.now() - 1000) }))).status).toBe(201);
    await eventually(async () => expect((await server.admin.get(`${path}/long-expired`)).status).toBe(404), 8000);
    expect((await server.admin.get(`${path}/recently-expired`)).status).toBe(200);
    expect((await server.admin.get(`${path}/existing`)).status).toBe(200);
    const metrics = await server.admin.get('/metrics', { headers: { Accept: 'text/plain' } });
    const deleted = /^access_expired_bindings_deleted_total (\d+)$/m.exec(metrics.text);
    expect(Number(deleted?.[1])).toBeGreaterThanOrEqual(1);
  });
});
