import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultAuditOptions } from '../../src/config/options';
import { eventually } from '../support/eventually';
import { ClientIdentity } from '../support/https-client';
import { TestClock } from '../support/test-clock';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * Access requests through the real server: policies and requests with every check of their
 * own (422 with field causes, 403 when no policy allows), the requester recorded by the
 * server, approval through the `approval` subresource (self-approval, non-approvers,
 * escalation, approving twice, racing approvers, deleted policies), the controller's
 * time-bound binding (owned by the request, granting at once, ending at validUntil to the
 * second on the injected clock), denial, revocation, multi-approver and auto-approval
 * policies, crash recovery, and the retention of ended requests.
 */
const RBAC_GROUP = 'rbac.authorization.platform.io';
const RBAC = `/apis/${RBAC_GROUP}/v1`;
const ACCESS = '/apis/access.platform.io/v1';
const AUTHZ = '/apis/authorization.platform.io/v1';
const NS = 'payments';
const OTHER_NS = 'elsewhere';
const RETENTION_MS = 24 * 3600_000;
const MERGE = 'application/merge-patch+json';

const group = (name: string) => ({ kind: 'Group', apiGroup: RBAC_GROUP, name });
const user = (name: string) => ({ kind: 'User', apiGroup: RBAC_GROUP, name });
const clusterRole = (name: string) => ({ apiGroup: RBAC_GROUP, kind: 'ClusterRole', name });
const requests = (ns = NS) => `${ACCESS}/namespaces/${ns}/accessrequests`;

describe('access requests', () => {
  let server: TestServer;
  const clock = new TestClock();
  const identities = new Map<string, ClientIdentity>();
  const GROUPS: Record<string, string[]> = { alice: ['devs'], erin: ['devs'], bob: ['leads'], carol: ['leads'], dave: ['leads'], mallory: ['devs'] };
  const as = (name: string): ClientIdentity => identities.get(name) ?? identities.set(name, server.certFor(name, GROUPS[name] ?? [])).get(name)!;
  const client = (name: string) => ({
    get: (path: string) => server.anonymous.get(path, { as: as(name) }),
    post: (path: string, body: unknown) => server.anonymous.post(path, body, { as: as(name) }),
    put: (path: string, body: unknown) => server.anonymous.put(path, body, { as: as(name) }),
    patch: (path: string, body: unknown) => server.anonymous.patch(path, body, MERGE, { as: as(name) }),
  });
  const canEditConfigMaps = async (name: string) =>
    (
      await server.admin.post(`${AUTHZ}/subjectaccessreviews`, {
        spec: { user: name, groups: GROUPS[name], resourceAttributes: { namespace: NS, verb: 'create', resource: 'configmaps' } },
      })
    ).body.status.allowed as boolean;

  async function request(name: string, by: string, spec: Record<string, unknown>, ns = NS) {
    return client(by).post(requests(ns), { metadata: { name }, spec: { roleRef: clusterRole('edit'), duration: '1h', ...spec } });
  }
  /** A decision through the approval subresource, the way kubectl access sends it. */
  async function decide(name: string, by: string, entry: 'approvals' | 'denials' | 'revocation', comment?: string, ns = NS) {
    const current = (await server.admin.get(`${requests(ns)}/${name}`)).body;
    const status = { ...current.status };
    if (entry === 'revocation') status.revocation = { comment };
    else status[entry] = [...(status[entry] ?? []), { comment }];
    return client(by).put(`${requests(ns)}/${name}/approval`, { ...current, status });
  }
  const get = async (name: string, ns = NS) => (await server.admin.get(`${requests(ns)}/${name}`)).body;
  /** Wakes the leader's controllers (a change of a kind they watch), as time moved by the test clock does not. */
  let pokes = 0;
  const poke = async () => expect((await server.admin.post('/api/v1/namespaces', { metadata: { name: `poke-${++pokes}` } })).status).toBe(201);

  let auditDir: string;
  const auditEvents = (auditId: string): any[] =>
    readFileSync(join(auditDir, 'audit.log'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((e) => e.auditID === auditId && e.stage === 'ResponseComplete');

  beforeAll(async () => {
    auditDir = mkdtempSync(join(tmpdir(), 'access-requests-'));
    const policyFile = join(auditDir, 'policy.yaml');
    writeFileSync(policyFile, 'apiVersion: audit.platform.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources: [{group: access.platform.io}]\n');
    const audit = { ...defaultAuditOptions(), policyFile, logPath: join(auditDir, 'audit.log') };
    server = await startTestServer({ clock, options: { accessRequestRetentionMs: RETENTION_MS, audit } });
    for (const ns of [NS, OTHER_NS]) expect((await server.admin.post('/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
    const bindings: Array<[string, string, unknown[], string?]> = [
      // Requesters and approvers may use the API; bob and dave can grant edit in NS (they hold it), carol cannot.
      ['requesters', 'access-requester', [group('devs')]],
      ['approvers', 'access-approver', [group('leads')]],
      ['bob-edit', 'edit', [user('bob'), user('dave')], NS],
    ];
    for (const [name, role, subjects, ns] of bindings) {
      const path = ns ? `${RBAC}/namespaces/${ns}/rolebindings` : `${RBAC}/clusterrolebindings`;
      expect((await server.admin.post(path, { metadata: { name }, roleRef: clusterRole(role), subjects })).status).toBe(201);
    }
    expect(
      (
        await server.admin.post(`${RBAC}/clusterroles`, {
          metadata: { name: 'configmap-reader', labels: { 'access.example/requestable': 'true' } },
          rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
        })
      ).status,
    ).toBe(201);
    const policies = [
      { name: 'a-payments-edit', spec: { roles: [{ kind: 'ClusterRole', names: ['edit'] }], namespaces: [NS], requesters: [group('devs')], approvers: [group('leads')], maxDuration: '2h' } },
      {
        name: 'b-two-approvers',
        spec: { roles: [{ kind: 'ClusterRole', names: ['admin'] }], namespaces: [NS], requesters: [group('devs')], approvers: [group('leads')], requiredApprovals: 2, requireJustification: true },
      },
      {
        name: 'c-auto',
        spec: {
          roles: [{ kind: 'ClusterRole', selector: { matchLabels: { 'access.example/requestable': 'true' } } }],
          namespaceSelector: {},
          requesters: [group('devs')],
          autoApprove: [{ expression: 'request.durationSeconds <= 1800 && request.justification.startsWith("INC-")' }],
        },
      },
    ];
    for (const { name, spec } of policies) expect((await server.admin.post(`${ACCESS}/accessrequestpolicies`, { metadata: { name }, spec })).status).toBe(201);
  });

  afterAll(async () => {
    await server?.close();
    rmSync(auditDir, { recursive: true, force: true });
  });

  describe('policies', () => {
    it('defaults requiredApprovals and maxDuration', async () => {
      const policy = (await server.admin.get(`${ACCESS}/accessrequestpolicies/a-payments-edit`)).body;
      expect(policy.spec).toMatchObject({ requiredApprovals: 1, maxDuration: '2h' });
      expect((await server.admin.get(`${ACCESS}/accessrequestpolicies/c-auto`)).body.spec).toMatchObject({ requiredApprovals: 1, maxDuration: '1h' });
    });

    it('refuses a policy that could allow nothing, or has a bad expression, with 422 and every cause', async () => {
      const res = await server.admin.post(`${ACCESS}/accessrequestpolicies`, {
        metadata: { name: 'bad' },
        spec: {
          roles: [{ kind: 'Secret', names: ['x'] }],
          requesters: [],
          requiredApprovals: 0,
          maxDuration: '1day',
          autoApprove: [{ expression: 'request.durationSeconds + "x"' }],
        },
      });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422 });
      expect(res.body.details.causes.map((c: { field: string }) => c.field).sort()).toEqual(
        ['spec.autoApprove[0].expression', 'spec.maxDuration', 'spec.namespaces', 'spec.requesters', 'spec.requiredApprovals', 'spec.roles[0].kind'].sort(),
      );
    });
  });

  describe('creating a request', () => {
    it('records the authenticated requester whatever the body says, and the policy that allows it', async () => {
      const res = await client('alice').post(requests(), {
        metadata: { name: 'forged' },
        spec: { roleRef: clusterRole('edit'), duration: '30m', requester: { username: 'bob', groups: ['leads'] } },
      });
      expect(res.status).toBe(201);
      expect(res.body.spec.requester).toEqual({ username: 'alice', groups: ['devs', 'system:authenticated'] });
      expect(res.body.status).toEqual({ phase: 'Pending', policy: 'a-payments-edit' });
    });

    it('refuses a duration above the policy maximum, a missing justification, an unknown role and a bad duration with 422 and the field', async () => {
      const causes = async (res: { status: number; body: any }) => {
        expect(res.status).toBe(422);
        return res.body.details.causes.map((c: { field: string; reason: string }) => `${c.field} ${c.reason}`);
      };
      expect(await causes(await request('too-long', 'alice', { duration: '3h' }))).toEqual(['spec.duration FieldValueInvalid']);
      expect((await request('too-long', 'alice', { duration: '3h' })).body.message).toContain('must be at most 2h');
      expect(await causes(await request('no-reason', 'alice', { roleRef: clusterRole('admin') }))).toEqual(['spec.justification FieldValueInvalid']);
      expect(await causes(await request('no-role', 'alice', { roleRef: clusterRole('no-such-role') }))).toEqual(['spec.roleRef.name FieldValueNotFound']);
      expect(await causes(await request('bad-duration', 'alice', { duration: 'soon' }))).toEqual(['spec.duration FieldValueInvalid']);
      expect(await causes(await request('bad-kind', 'alice', { roleRef: { apiGroup: RBAC_GROUP, kind: 'Secret', name: 'x' } }))).toEqual(['spec.roleRef.kind FieldValueNotSupported']);
      expect((await get('too-long')).code).toBe(404);
    });

    it('refuses with 403 a request no policy covers: another namespace, another role, another requester', async () => {
      for (const [name, by, spec, ns] of [
        ['other-ns', 'alice', {}, OTHER_NS],
        ['other-role', 'alice', { roleRef: clusterRole('view') }, NS],
      ] as const) {
        // alice may create requests in OTHER_NS (access-requester is bound cluster-wide); no policy covers it.
        const res = await request(name, by, spec, ns);
        expect({ status: res.status, reason: res.body.reason }).toEqual({ status: 403, reason: 'Forbidden' });
        expect(res.body.message).toContain('no AccessRequestPolicy allows user "alice"');
      }
      const notRequester = await server.admin.post(`${RBAC}/clusterrolebindings`, { metadata: { name: 'bob-requester' }, roleRef: clusterRole('access-requester'), subjects: [user('bob')] });
      expect(notRequester.status).toBe(201);
      expect((await request('by-bob', 'bob', {})).status).toBe(403);
    });

    it('keeps the spec immutable: the requester cannot turn a pending request into another role', async () => {
      expect((await request('immutable', 'alice', {})).status).toBe(201);
      const res = await server.admin.patch(`${requests()}/immutable`, { spec: { roleRef: clusterRole('admin') } }, MERGE);
      expect(res.status).toBe(422);
      expect(res.body.details.causes).toEqual([expect.objectContaining({ field: 'spec', reason: 'FieldValueForbidden' })]);
      const requester = await server.admin.patch(`${requests()}/immutable`, { spec: { requester: { username: 'mallory' } } }, MERGE);
      expect(requester.status).toBe(422);
      // A main-resource write never touches the status.
      const statusWrite = await server.admin.patch(`${requests()}/immutable`, { status: { phase: 'Approved' } }, MERGE);
      expect(statusWrite.status).toBe(200);
      expect(statusWrite.body.status.phase).toBe('Pending');
    });

    it('is in discovery with its subresources', async () => {
      const resources = (await server.admin.get(ACCESS)).body.resources.map((r: { name: string; namespaced: boolean; verbs: string[] }) => `${r.name} ${r.namespaced} ${r.verbs.join(',')}`);
      for (const [plural, namespaced] of [
        ['accessrequests', true],
        ['clusteraccessrequests', false],
      ] as const) {
        expect(resources).toEqual(
          expect.arrayContaining([
            `${plural} ${namespaced} create,delete,deletecollection,get,list,patch,update,watch`,
            `${plural}/status ${namespaced} get,update`,
            `${plural}/approval ${namespaced} get,update`,
            `${plural}/cancellation ${namespaced} get,update`,
          ]),
        );
      }
      expect(resources).toContain('accessrequestpolicies false create,delete,deletecollection,get,list,patch,update,watch');
    });

    it('serves the Table kubectl prints', async () => {
      const res = await server.admin.get(requests(), { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
      expect(res.status).toBe(200);
      expect(res.body.columnDefinitions.map((c: { name: string }) => c.name).slice(0, 8)).toEqual(['Name', 'Requester', 'Role', 'Scope', 'Duration', 'Phase', 'Approvals', 'Age']);
    });
  });

  describe('approval', () => {
    it('refuses self-approval, a non-approver, and an approver who could not grant the role', async () => {
      expect((await request('needs-approval', 'alice', { duration: '2h' })).status).toBe(201);
      const self = await decide('needs-approval', 'alice', 'approvals');
      // alice lacks update on the approval subresource at all.
      expect(self.status).toBe(403);
      const mallory = await decide('needs-approval', 'mallory', 'approvals');
      expect(mallory.status).toBe(403);
      const carol = await decide('needs-approval', 'carol', 'approvals');
      expect(carol.status).toBe(403);
      expect(carol.body.message).toContain('approving would grant what user "carol" cannot grant');
      expect((await get('needs-approval')).status.phase).toBe('Pending');
    });

    it('an approver who is also the requester cannot approve their own request', async () => {
      GROUPS.erin = ['devs', 'leads'];
      expect((await server.admin.post(`${RBAC}/namespaces/${NS}/rolebindings`, { metadata: { name: 'erin-edit' }, roleRef: clusterRole('edit'), subjects: [user('erin')] })).status).toBe(201);
      expect((await request('own', 'erin', {})).status).toBe(201);
      const res = await decide('own', 'erin', 'approvals');
      expect(res.status).toBe(403);
      expect(res.body.message).toContain('made this request and cannot approve it');
    });

    it('approval grants at once through a time-bound binding owned by the request, and the window ends it to the second', async () => {
      expect(await canEditConfigMaps('alice')).toBe(false);
      const res = await decide('needs-approval', 'bob', 'approvals', 'go ahead');
      expect(res.status).toBe(200);
      expect(res.body.status).toMatchObject({ phase: 'Approved', approvals: [{ user: 'bob', comment: 'go ahead' }] });
      const { validFrom, validUntil } = res.body.status;
      expect(Date.parse(validUntil) - Date.parse(validFrom)).toBe(2 * 3600_000);
      await eventually(async () => expect((await get('needs-approval')).status.phase).toBe('Active'));
      const request = await get('needs-approval');
      expect(request.status.bindingRef).toMatchObject({ kind: 'RoleBinding', namespace: NS, name: 'accessrequest-needs-approval' });
      expect(request.status.conditions.map((c: { type: string; status: string }) => `${c.type}=${c.status}`)).toEqual(['Approved=True', 'Granted=True']);
      const binding = (await server.admin.get(`${RBAC}/namespaces/${NS}/rolebindings/accessrequest-needs-approval`)).body;
      expect(binding).toMatchObject({
        roleRef: clusterRole('edit'),
        subjects: [user('alice')],
        metadata: {
          annotations: { [`${RBAC_GROUP}/valid-from`]: validFrom, [`${RBAC_GROUP}/valid-until`]: validUntil },
          ownerReferences: [{ kind: 'AccessRequest', name: 'needs-approval', uid: request.metadata.uid, controller: true }],
        },
      });
      expect(await canEditConfigMaps('alice')).toBe(true);
      const configMap = await client('alice').post(`/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'made-by-alice' } });
      expect(configMap.status).toBe(201);

      // Approving twice, denying or approving an approved request: 409, nothing changes.
      expect((await decide('needs-approval', 'dave', 'approvals')).status).toBe(409);
      expect((await decide('needs-approval', 'bob', 'denials')).status).toBe(409);

      // One second before the end it still grants; at validUntil it does not, with no write in between.
      clock.advance(Date.parse(validUntil) - clock.now() - 1000);
      expect(await canEditConfigMaps('alice')).toBe(true);
      clock.advance(1000);
      expect(await canEditConfigMaps('alice')).toBe(false);
      await poke();
      await eventually(async () => expect((await get('needs-approval')).status.phase).toBe('Expired'));
      // Kept as history; approving an expired request is a conflict.
      expect((await decide('needs-approval', 'bob', 'approvals')).status).toBe(409);
    });

    it('denial ends a request; it cannot be approved afterwards', async () => {
      expect((await request('to-deny', 'alice', {})).status).toBe(201);
      const res = await decide('to-deny', 'bob', 'denials', 'not during the freeze');
      expect(res.status).toBe(200);
      expect(res.body.status).toMatchObject({ phase: 'Denied', denials: [{ user: 'bob', comment: 'not during the freeze' }] });
      // The audit event names the decision and the transition.
      await eventually(() =>
        expect(auditEvents(res.headers['audit-id'] as string)[0]?.annotations).toMatchObject({
          'access.platform.io/decision': 'deny',
          'access.platform.io/transition': 'Pending->Denied',
        }),
      );
      expect((await decide('to-deny', 'dave', 'approvals')).status).toBe(409);
    });

    it('refuses a body that changes recorded decisions, adds two, adds none, or names someone else', async () => {
      expect((await request('bad-bodies', 'alice', {})).status).toBe(201);
      const current = await get('bad-bodies');
      const put = (status: unknown) => client('bob').put(`${requests()}/bad-bodies/approval`, { ...current, status });
      for (const [status, field] of [
        [{ ...current.status }, 'status'],
        [{ ...current.status, approvals: [{}], denials: [{}] }, 'status'],
        [{ ...current.status, approvals: [{ user: 'dave' }] }, 'status.approvals[0].user'],
      ] as const) {
        const res = await put(status);
        expect({ status: res.status, fields: res.body.details?.causes?.map((c: { field: string }) => c.field) }).toEqual({ status: 422, fields: [field] });
      }
    });

    it('racing approvers produce one approval and one binding', async () => {
      expect((await request('raced', 'alice', {})).status).toBe(201);
      const [first, second] = await Promise.all([decide('raced', 'bob', 'approvals'), decide('raced', 'dave', 'approvals')]);
      expect([first.status, second.status].sort()).toEqual([200, 409]);
      await eventually(async () => expect((await get('raced')).status.phase).toBe('Active'));
      expect((await get('raced')).status.approvals).toHaveLength(1);
      const bindings = (await server.admin.get(`${RBAC}/namespaces/${NS}/rolebindings?labelSelector=access.platform.io/access-request-uid`)).body.items;
      expect(bindings.filter((b: any) => b.metadata.ownerReferences[0].name === 'raced')).toHaveLength(1);
    });

    it('revocation removes the access at once', async () => {
      expect(await canEditConfigMaps('alice')).toBe(true);
      const res = await decide('raced', 'dave', 'revocation', 'incident closed');
      expect(res.status).toBe(200);
      expect(res.body.status).toMatchObject({ phase: 'Revoked', revocation: { user: 'dave', comment: 'incident closed' } });
      expect((await server.admin.get(`${RBAC}/namespaces/${NS}/rolebindings/accessrequest-raced`)).status).toBe(404);
      expect(await canEditConfigMaps('alice')).toBe(false);
      expect((await decide('raced', 'dave', 'revocation')).status).toBe(422);
    });

    it('the requester cancels their own request, pending or granted; nobody else can, and not through approval', async () => {
      expect((await request('to-cancel', 'alice', {})).status).toBe(201);
      const current = await get('to-cancel');
      const body = { ...current, status: { ...current.status, cancellation: { comment: 'not needed' } } };
      const viaApproval = await client('bob').put(`${requests()}/to-cancel/approval`, body);
      expect(viaApproval.status).toBe(422);
      expect(viaApproval.body.details.causes).toEqual([expect.objectContaining({ field: 'status.cancellation', reason: 'FieldValueForbidden' })]);
      // bob may use the subresource (he was made a requester above), but it is not his request.
      const byBob = await client('bob').put(`${requests()}/to-cancel/cancellation`, body);
      expect(byBob.status).toBe(403);
      expect(byBob.body.message).toContain('only the requester ("alice") can cancel this request');
      const canceled = await client('alice').put(`${requests()}/to-cancel/cancellation`, body);
      expect(canceled.status).toBe(200);
      expect(canceled.body.status).toMatchObject({ phase: 'Canceled', cancellation: { user: 'alice', comment: 'not needed' } });
      expect((await decide('to-cancel', 'bob', 'approvals')).status).toBe(409);

      expect((await request('give-back', 'alice', {})).status).toBe(201);
      expect((await decide('give-back', 'bob', 'approvals')).status).toBe(200);
      await eventually(async () => expect((await get('give-back')).status.phase).toBe('Active'));
      expect(await canEditConfigMaps('alice')).toBe(true);
      const granted = await get('give-back');
      expect((await client('alice').put(`${requests()}/give-back/cancellation`, { ...granted, status: { ...granted.status, cancellation: {} } })).status).toBe(200);
      expect(await canEditConfigMaps('alice')).toBe(false);
      expect((await server.admin.get(`${RBAC}/namespaces/${NS}/rolebindings/accessrequest-give-back`)).status).toBe(404);
    });

    it('needs every required approval from distinct approvers', async () => {
      expect((await request('two', 'alice', { roleRef: clusterRole('admin'), justification: 'migration' })).status).toBe(201);
      expect((await server.admin.post(`${RBAC}/namespaces/${NS}/rolebindings`, { metadata: { name: 'admins' }, roleRef: clusterRole('admin'), subjects: [user('bob'), user('dave')] })).status).toBe(201);
      const one = await decide('two', 'bob', 'approvals');
      expect(one.status).toBe(200);
      expect(one.body.status.phase).toBe('Pending');
      expect(one.body.status.conditions).toEqual([expect.objectContaining({ type: 'Approved', status: 'False', reason: 'AwaitingApprovals', message: '1 of 2 approvals' })]);
      expect((await decide('two', 'bob', 'approvals')).status).toBe(409);
      const two = await decide('two', 'dave', 'approvals');
      expect(two.body.status.phase).toBe('Approved');
      await eventually(async () => expect((await get('two')).status.phase).toBe('Active'));
    });

    it('a dry-run approval answers what would happen and changes nothing', async () => {
      expect((await request('dry', 'alice', {})).status).toBe(201);
      const current = await get('dry');
      const res = await client('bob').put(`${requests()}/dry/approval?dryRun=All`, { ...current, status: { ...current.status, approvals: [{}] } });
      expect(res.status).toBe(200);
      expect(res.body.status.phase).toBe('Approved');
      expect((await get('dry')).status.phase).toBe('Pending');
      expect((await get('dry')).metadata.resourceVersion).toBe(current.metadata.resourceVersion);
    });

    it('a stale resourceVersion in the body is a conflict', async () => {
      const current = await get('dry');
      expect((await server.admin.patch(`${requests()}/dry`, { metadata: { labels: { touched: 'yes' } } }, MERGE)).status).toBe(200);
      const res = await client('bob').put(`${requests()}/dry/approval`, { ...current, status: { ...current.status, approvals: [{}] } });
      expect({ status: res.status, reason: res.body.reason }).toEqual({ status: 409, reason: 'Conflict' });
    });

    it('a ClusterAccessRequest is granted cluster-wide by a ClusterRoleBinding', async () => {
      const spec = { roles: [{ kind: 'ClusterRole', names: ['view'] }], clusterWide: true, requesters: [group('devs')], approvers: [user('root')] };
      expect((await server.admin.post(`${ACCESS}/accessrequestpolicies`, { metadata: { name: 'e-cluster-view' }, spec })).status).toBe(201);
      const made = await client('alice').post(`${ACCESS}/clusteraccessrequests`, { metadata: { name: 'view-everywhere' }, spec: { roleRef: clusterRole('view'), duration: '15m' } });
      expect(made.status).toBe(201);
      expect(made.body.status).toEqual({ phase: 'Pending', policy: 'e-cluster-view' });
      // A Role cannot be requested cluster-wide.
      const role = await client('alice').post(`${ACCESS}/clusteraccessrequests`, { metadata: { name: 'role' }, spec: { roleRef: { ...clusterRole('x'), kind: 'Role' }, duration: '15m' } });
      expect(role.body.details.causes).toEqual([expect.objectContaining({ field: 'spec.roleRef.kind', reason: 'FieldValueNotSupported' })]);
      GROUPS.root = ['system:masters'];
      const approved = await client('root').put(`${ACCESS}/clusteraccessrequests/view-everywhere/approval`, { ...made.body, status: { ...made.body.status, approvals: [{ comment: 'ok' }] } });
      expect(approved.status).toBe(200);
      await eventually(async () => expect((await server.admin.get(`${ACCESS}/clusteraccessrequests/view-everywhere`)).body.status.phase).toBe('Active'));
      const binding = (await server.admin.get(`${RBAC}/clusterrolebindings/clusteraccessrequest-view-everywhere`)).body;
      expect(binding).toMatchObject({ roleRef: clusterRole('view'), subjects: [user('alice')], metadata: { ownerReferences: [{ kind: 'ClusterAccessRequest', name: 'view-everywhere' }] } });
      const sar = await server.admin.post(`${AUTHZ}/subjectaccessreviews`, { spec: { user: 'alice', resourceAttributes: { namespace: OTHER_NS, verb: 'list', resource: 'configmaps' } } });
      expect(sar.body.status.allowed).toBe(true);
    });

    it('two approvers writing at once without a resourceVersion both count, as kubectl access sends them', async () => {
      expect((await request('two-at-once', 'alice', { roleRef: clusterRole('admin'), justification: 'migration' })).status).toBe(201);
      const current = await get('two-at-once');
      const { resourceVersion: _read, ...metadata } = current.metadata;
      const approve = (by: string) => client(by).put(`${requests()}/two-at-once/approval`, { ...current, metadata, status: { ...current.status, approvals: [{ comment: by }] } });
      const answers = await Promise.all([approve('bob'), approve('dave')]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      const approved = await get('two-at-once');
      expect(approved.status.phase).toMatch(/^(Approved|Active)$/);
      expect(approved.status.approvals.map((a: { user: string }) => a.user).sort()).toEqual(['bob', 'dave']);
    });

    it('a request whose policy was deleted stays Pending and cannot be approved', async () => {
      const spec = { roles: [{ kind: 'ClusterRole', names: ['view'] }], namespaces: [NS], requesters: [group('devs')], approvers: [group('leads')] };
      expect((await server.admin.post(`${ACCESS}/accessrequestpolicies`, { metadata: { name: 'd-view' }, spec })).status).toBe(201);
      expect((await request('orphaned', 'alice', { roleRef: clusterRole('view') })).status).toBe(201);
      expect((await server.admin.delete(`${ACCESS}/accessrequestpolicies/d-view`)).status).toBe(200);
      const res = await decide('orphaned', 'bob', 'approvals');
      expect(res.status).toBe(409);
      expect(res.body.message).toContain('AccessRequestPolicy "d-view" no longer exists or no longer allows this request');
      expect((await get('orphaned')).status.phase).toBe('Pending');
    });
  });

  describe('auto-approval and the controller', () => {
    it('approves at once what the policy\'s autoApprove allows, and only that', async () => {
      expect((await request('auto', 'alice', { roleRef: clusterRole('configmap-reader'), duration: '30m', justification: 'INC-42' })).status).toBe(201);
      await eventually(async () => expect((await get('auto')).status.phase).toBe('Active'));
      expect((await get('auto')).status.approvals).toEqual([expect.objectContaining({ user: 'system:controller:access-request-controller', comment: 'auto-approved by AccessRequestPolicy "c-auto"' })]);
      expect((await request('not-auto', 'alice', { roleRef: clusterRole('configmap-reader'), duration: '45m', justification: 'INC-43' })).status).toBe(201);
      // A barrier: a later request is auto-approved, so the controller has seen the earlier one.
      expect((await request('auto-2', 'alice', { roleRef: clusterRole('configmap-reader'), duration: '10m', justification: 'INC-44' })).status).toBe(201);
      await eventually(async () => expect((await get('auto-2')).status.phase).toBe('Active'));
      expect((await get('not-auto')).status.phase).toBe('Pending');
    });

    it('finishes an approval whose binding was never made (a leader lost between the two)', async () => {
      expect((await request('crashed', 'alice', { roleRef: clusterRole('configmap-reader'), duration: '50m' })).status).toBe(201);
      const current = await get('crashed');
      const from = Math.floor(clock.now() / 1000) * 1000;
      const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
      // What an approval leaves when the process dies right after writing it.
      const status = { ...current.status, phase: 'Approved', approvals: [{ user: 'bob', time: iso(from) }], validFrom: iso(from), validUntil: iso(from + 50 * 60_000) };
      expect((await server.admin.put(`${requests()}/crashed/status`, { ...current, status })).status).toBe(200);
      await eventually(async () => expect((await get('crashed')).status.phase).toBe('Active'));
      expect((await server.admin.get(`${RBAC}/namespaces/${NS}/rolebindings/accessrequest-crashed`)).status).toBe(200);
    });

    it('counts requests by phase and the time to approval in the metrics', async () => {
      const metrics = (await server.admin.get('/metrics', { headers: { Accept: 'text/plain' } })).text as string;
      const count = (phase: string) => Number(new RegExp(`^access_requests_total\\{kind="AccessRequest",phase="${phase}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
      expect(count('Pending')).toBeGreaterThanOrEqual(10);
      expect(count('Denied')).toBe(1);
      expect(count('Revoked')).toBe(1);
      expect(count('Expired')).toBe(1);
      expect(count('Active')).toBeGreaterThanOrEqual(count('Approved') - 1);
      const approvals = Number(/^access_request_approval_duration_seconds_count\{kind="AccessRequest"\} (\d+)$/m.exec(metrics)?.[1]);
      expect(approvals).toBe(count('Approved'));
    });

    it('deletes ended requests after the retention; a deleted request takes its binding along', async () => {
      expect((await server.admin.delete(`${requests()}/auto`)).status).toBe(200);
      await eventually(async () => expect((await server.admin.get(`${RBAC}/namespaces/${NS}/rolebindings/accessrequest-auto`)).status).toBe(404));
      expect((await get('to-deny')).status.phase).toBe('Denied');
      clock.advance(RETENTION_MS + 1000);
      await poke();
      await eventually(async () => expect((await get('to-deny')).code).toBe(404));
      await eventually(async () => expect((await get('needs-approval')).code).toBe(404));
      // Pending requests are not history yet.
      expect((await get('not-auto')).status.phase).toBe('Pending');
    });
  });
});
