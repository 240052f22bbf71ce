import { ClientIdentity } from '../support/https-client';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * Access requests follow guardrails (issue 35): a request for a role that grants something
 * a guardrail denies its requester is refused at create (403 naming the guardrail), and
 * again at approval when the guardrail appeared after the request, so no binding is made.
 */
const RBAC_GROUP = 'rbac.authorization.platform.io';
const RBAC = `/apis/${RBAC_GROUP}/v1`;
const ACCESS = '/apis/access.platform.io/v1';
const NS = 'payments';

const group = (name: string) => ({ kind: 'Group', apiGroup: RBAC_GROUP, name });
const user = (name: string) => ({ kind: 'User', apiGroup: RBAC_GROUP, name });
const clusterRole = (name: string) => ({ apiGroup: RBAC_GROUP, kind: 'ClusterRole', name });
const requests = `${ACCESS}/namespaces/${NS}/accessrequests`;
const noSecrets = (subjects: object[], exceptions: object[] = []) => ({
  match: { verbs: ['*'], apiGroups: [''], resources: ['secrets'] },
  subjects,
  exceptions,
  message: 'secrets are for the SRE group',
});

describe('access requests and guardrails', () => {
  let server: TestServer;
  const identities = new Map<string, ClientIdentity>();
  const GROUPS: Record<string, string[]> = { alice: ['devs'], erin: ['devs'], frank: ['contractors'], bob: ['leads'], gina: ['auditors'] };
  const as = (name: string): ClientIdentity => identities.get(name) ?? identities.set(name, server.certFor(name, GROUPS[name] ?? [])).get(name)!;
  const request = (name: string, by: string, role: string) =>
    server.anonymous.post(requests, { metadata: { name }, spec: { roleRef: clusterRole(role), duration: '1h' } }, { as: as(by) });
  const created = async (path: string, body: object) => {
    const res = await server.admin.post(path, body);
    expect({ status: res.status, body: res.status === 201 ? undefined : res.body }).toEqual({ status: 201, body: undefined });
  };

  beforeAll(async () => {
    server = await startTestServer({});
    await created('/api/v1/namespaces', { metadata: { name: NS } });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'requesters' }, roleRef: clusterRole('access-requester'), subjects: [group('devs'), group('contractors')] });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'approvers' }, roleRef: clusterRole('access-approver'), subjects: [group('leads')] });
    // bob holds edit in NS, so approving edit there is no escalation.
    await created(`${RBAC}/namespaces/${NS}/rolebindings`, { metadata: { name: 'bob-edit' }, roleRef: clusterRole('edit'), subjects: [user('bob')] });
    await created(`${RBAC}/clusterroles`, { metadata: { name: 'configmap-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] });
    await created(`${ACCESS}/accessrequestpolicies`, {
      metadata: { name: 'payments' },
      spec: {
        roles: [{ kind: 'ClusterRole', names: ['edit', 'configmap-reader'] }],
        namespaces: [NS],
        requesters: [group('devs'), group('contractors')],
        approvers: [group('leads')],
      },
    });
    await created(`${ACCESS}/accessguardrails`, { metadata: { name: 'no-secrets' }, spec: noSecrets([group('devs')], [user('erin')]) });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('refuses with 403, naming the guardrail and its message, a request for a role that grants what it denies', async () => {
    const res = await request('edit', 'alice', 'edit');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      details: { name: 'edit', group: 'access.platform.io', kind: 'accessrequests' },
      message: 'accessrequests.access.platform.io "edit" is forbidden: access guardrail "no-secrets" denies what ClusterRole "edit" grants: secrets are for the SRE group',
    });
    expect((await server.admin.get(`${requests}/edit`)).status).toBe(404);
  });

  it('still creates a request for a role that does not touch what the guardrail denies', async () => {
    const res = await request('reader', 'alice', 'configmap-reader');
    expect(res.status).toBe(201);
    expect(res.body.status).toEqual({ phase: 'Pending', policy: 'payments' });
  });

  it('allows the request of a subject the guardrail exempts', async () => {
    const res = await request('exempt', 'erin', 'edit');
    expect(res.status).toBe(201);
    expect(res.body.status.phase).toBe('Pending');
  });

  it('refuses with 403 the approval of a request a guardrail made since forbids, and makes no binding', async () => {
    expect((await request('late', 'frank', 'edit')).status).toBe(201);
    await created(`${ACCESS}/accessguardrails`, { metadata: { name: 'contractors-no-secrets' }, spec: noSecrets([group('contractors')]) });
    const current = (await server.admin.get(`${requests}/late`)).body;
    const res = await server.anonymous.put(`${requests}/late/approval`, { ...current, status: { ...current.status, approvals: [{}] } }, { as: as('bob') });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message: 'accessrequests.access.platform.io "late" is forbidden: access guardrail "contractors-no-secrets" denies what ClusterRole "edit" grants: secrets are for the SRE group',
    });
    const after = (await server.admin.get(`${requests}/late`)).body;
    expect(after.status).toEqual({ phase: 'Pending', policy: 'payments' });
    expect((await server.admin.get(`${RBAC}/namespaces/${NS}/rolebindings/accessrequest-late`)).status).toBe(404);
  });

  it('refuses a cluster-wide request whose wildcard role reaches the namespace a guardrail protects', async () => {
    await created(`${RBAC}/clusterroles`, { metadata: { name: 'read-anything' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['get'] }] });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'auditors-request' }, roleRef: clusterRole('access-requester'), subjects: [group('auditors')] });
    await created(`${ACCESS}/accessrequestpolicies`, {
      metadata: { name: 'auditors' },
      spec: { roles: [{ kind: 'ClusterRole', names: ['read-anything', 'configmap-reader'] }], clusterWide: true, requesters: [group('auditors')], approvers: [group('leads')] },
    });
    await created(`${ACCESS}/accessguardrails`, {
      metadata: { name: 'kube-system-secrets' },
      spec: { match: { verbs: ['get'], apiGroups: [''], resources: ['secrets'], namespaces: ['kube-system'] }, subjects: [group('auditors')] },
    });
    const post = (name: string, role: string) =>
      server.anonymous.post(`${ACCESS}/clusteraccessrequests`, { metadata: { name }, spec: { roleRef: clusterRole(role), duration: '1h' } }, { as: as('gina') });
    const res = await post('wild', 'read-anything');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message: 'clusteraccessrequests.access.platform.io "wild" is forbidden: access guardrail "kube-system-secrets" denies what ClusterRole "read-anything" grants',
    });
    expect((await post('narrow', 'configmap-reader')).status).toBe(201);
  });
});
