import { dropTestSchema, newTestSchema } from '../support/db';
import { eventually } from '../support/eventually';
import { ClientIdentity } from '../support/https-client';
import { describeWithPostgres } from '../support/postgres';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * Access requests on two replicas of one PostgreSQL: a request made through one replica and
 * approved through the other grants on both (whichever leads runs the controller), and a
 * revocation through either ends it on both.
 */
const RBAC_GROUP = 'rbac.authorization.platform.io';
const RBAC = `/apis/${RBAC_GROUP}/v1`;
const ACCESS = '/apis/access.platform.io/v1';
const AUTHZ = '/apis/authorization.platform.io/v1';
const NS = 'replicated';

const group = (name: string) => ({ kind: 'Group', apiGroup: RBAC_GROUP, name });
const clusterRole = (name: string) => ({ apiGroup: RBAC_GROUP, kind: 'ClusterRole', name });

describeWithPostgres('access requests across replicas', (pgUrl) => {
  it('approved on one replica, granted on every replica; revoked on one, gone on every replica', async () => {
    const schema = newTestSchema();
    const first = await startTestServer({ databaseUrl: pgUrl, schema });
    let second: TestServer | undefined;
    try {
      second = await startTestServer({ databaseUrl: pgUrl, schema });
      const replicas = [first, second];
      // The fresh servers of one test file share their CA: a certificate works on both.
      const alice: ClientIdentity = first.certFor('alice', ['devs']);
      const bob: ClientIdentity = first.certFor('bob', ['leads']);
      const created = async (path: string, body: object) => expect((await first.admin.post(path, body)).status).toBe(201);
      await created('/api/v1/namespaces', { metadata: { name: NS } });
      await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'requesters' }, roleRef: clusterRole('access-requester'), subjects: [group('devs')] });
      await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'approvers' }, roleRef: clusterRole('access-approver'), subjects: [group('leads')] });
      await created(`${RBAC}/namespaces/${NS}/rolebindings`, { metadata: { name: 'leads-edit' }, roleRef: clusterRole('edit'), subjects: [group('leads')] });
      await created(`${ACCESS}/accessrequestpolicies`, {
        metadata: { name: 'edit' },
        spec: { roles: [{ kind: 'ClusterRole', names: ['edit'] }], namespaces: [NS], requesters: [group('devs')], approvers: [group('leads')] },
      });
      const allowed = async (server: TestServer) =>
        (await server.admin.post(`${AUTHZ}/subjectaccessreviews`, { spec: { user: 'alice', resourceAttributes: { namespace: NS, verb: 'create', resource: 'configmaps' } } })).body.status
          .allowed as boolean;
      const path = `${ACCESS}/namespaces/${NS}/accessrequests`;

      // Made through the second replica (its caches must already hold the policy made through the first).
      await eventually(async () => expect((await second!.anonymous.post(path, { metadata: { name: 'r' }, spec: { roleRef: clusterRole('edit'), duration: '1h' } }, { as: alice })).status).toBe(201));
      const made = (await first.admin.get(`${path}/r`)).body;
      const approved = await first.anonymous.put(`${path}/r/approval`, { ...made, status: { ...made.status, approvals: [{}] } }, { as: bob });
      expect(approved.status).toBe(200);
      for (const server of replicas) await eventually(async () => expect(await allowed(server)).toBe(true));
      await eventually(async () => expect((await second!.admin.get(`${path}/r`)).body.status.phase).toBe('Active'));

      const current = (await second.admin.get(`${path}/r`)).body;
      const revoked = await second.anonymous.put(`${path}/r/approval`, { ...current, status: { ...current.status, revocation: { comment: 'done' } } }, { as: bob });
      expect(revoked.status).toBe(200);
      expect(await allowed(second)).toBe(false);
      await eventually(async () => expect(await allowed(first)).toBe(false));
    } finally {
      await second?.close();
      await first.close();
      await dropTestSchema(pgUrl, schema);
    }
  });
});
