import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropTestSchema, newTestSchema } from '../support/db';
import { eventually } from '../support/eventually';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * An approval whose binding was never made, because the process that would have made it
 * went away first: the first server runs without the access request controller (as a
 * leader that died right after the approving write), the next one with it finishes the job.
 */
const RBAC_GROUP = 'rbac.authorization.platform.io';
const RBAC = `/apis/${RBAC_GROUP}/v1`;
const ACCESS = '/apis/access.platform.io/v1';
const NS = 'restarts';

const group = (name: string) => ({ kind: 'Group', apiGroup: RBAC_GROUP, name });
const clusterRole = (name: string) => ({ apiGroup: RBAC_GROUP, kind: 'ClusterRole', name });

describe('access requests across a restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'access-requests-restart-'));
  // On PostgreSQL the restart must find the same schema.
  const schema = process.env.DATABASE_URL ? newTestSchema() : undefined;
  let server: TestServer | undefined;

  afterAll(async () => {
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (schema) await dropTestSchema(process.env.DATABASE_URL!, schema);
  });

  it('the next leader makes the binding of an approval the previous one never granted', async () => {
    server = await startTestServer({ dataDir, schema, keep: true, options: { controllers: ['*', '-access-request-controller'] } });
    const created = async (path: string, body: object) => expect((await server!.admin.post(path, body)).status).toBe(201);
    await created('/api/v1/namespaces', { metadata: { name: NS } });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'requesters' }, roleRef: clusterRole('access-requester'), subjects: [group('devs')] });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'approvers' }, roleRef: clusterRole('access-approver'), subjects: [group('leads')] });
    await created(`${RBAC}/namespaces/${NS}/rolebindings`, { metadata: { name: 'leads-edit' }, roleRef: clusterRole('edit'), subjects: [group('leads')] });
    await created(`${ACCESS}/accessrequestpolicies`, {
      metadata: { name: 'edit' },
      spec: { roles: [{ kind: 'ClusterRole', names: ['edit'] }], namespaces: [NS], requesters: [group('devs')], approvers: [group('leads')] },
    });
    const path = `${ACCESS}/namespaces/${NS}/accessrequests`;
    const made = await server.anonymous.post(path, { metadata: { name: 'r' }, spec: { roleRef: clusterRole('edit'), duration: '1h' } }, { as: server.certFor('alice', ['devs']) });
    expect(made.status).toBe(201);
    const approved = await server.anonymous.put(`${path}/r/approval`, { ...made.body, status: { ...made.body.status, approvals: [{}] } }, { as: server.certFor('bob', ['leads']) });
    expect(approved.body.status.phase).toBe('Approved');
    await server.close();

    server = await startTestServer({ dataDir, schema, keep: true });
    await eventually(async () => expect((await server!.admin.get(`${path}/r`)).body.status.phase).toBe('Active'));
    const binding = (await server.admin.get(`${RBAC}/namespaces/${NS}/rolebindings/accessrequest-r`)).body;
    expect(binding.metadata.annotations).toEqual({
      [`${RBAC_GROUP}/valid-from`]: approved.body.status.validFrom,
      [`${RBAC_GROUP}/valid-until`]: approved.body.status.validUntil,
    });
    const review = await server.admin.post('/apis/authorization.platform.io/v1/subjectaccessreviews', {
      spec: { user: 'alice', resourceAttributes: { namespace: NS, verb: 'create', resource: 'configmaps' } },
    });
    expect(review.body.status.allowed).toBe(true);
  });
});
