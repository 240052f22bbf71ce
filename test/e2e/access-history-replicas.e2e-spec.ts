import { dropTestSchema, newTestSchema } from '../support/db';
import { eventually } from '../support/eventually';
import { describeWithPostgres } from '../support/postgres';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * Access history on two replicas of one PostgreSQL, with the leader stopped mid-stream: the
 * replica that takes over continues from the last recorded revision, so every gain and loss
 * made before, during and after the failover is recorded exactly once, and a watch of
 * AccessChange on the surviving replica sees each of them once, in order.
 */
const RBAC_GROUP = 'rbac.authorization.platform.io';
const RBAC = `/apis/${RBAC_GROUP}/v1`;
const CHANGES = '/apis/access.platform.io/v1/accesschanges';

const binding = (name: string, user: string) => ({
  metadata: { name },
  roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'view' },
  subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: user }],
});

describeWithPostgres('access history across a leader failover', (pgUrl) => {
  it('records every change exactly once when the leader stops mid-stream', async () => {
    const schema = newTestSchema();
    const first = await startTestServer({ databaseUrl: pgUrl, schema });
    let second: TestServer | undefined;
    try {
      second = await startTestServer({ databaseUrl: pgUrl, schema });
      const survivor = second;
      const from = (await survivor.admin.get(CHANGES)).body.metadata.resourceVersion;
      const watch = await survivor.admin.stream(`${CHANGES}?watch=1&resourceVersion=${from}&fieldSelector=${encodeURIComponent('cause.kind=ClusterRoleBinding')}`);
      expect(watch.status).toBe(200);

      // Recorded by the first leader.
      for (let i = 0; i < 5; i++) expect((await first.admin.post(`${RBAC}/clusterrolebindings`, binding(`before-${i}`, `u${i}`))).status).toBe(201);
      await eventually(async () => expect((await survivor.admin.get(`${CHANGES}?fieldSelector=${encodeURIComponent('cause.kind=ClusterRoleBinding')}`)).body.items).toHaveLength(5));

      // Written through the survivor while the leader goes away: some are recorded by neither yet.
      const during = Array.from({ length: 10 }, (_, i) => survivor.admin.post(`${RBAC}/clusterrolebindings`, binding(`during-${i}`, `v${i}`)));
      const stopping = first.close();
      for (const res of await Promise.all(during)) expect(res.status).toBe(201);
      await stopping;
      // And some after, which only the new leader can record; one of them takes a gain away.
      for (let i = 0; i < 3; i++) expect((await survivor.admin.post(`${RBAC}/clusterrolebindings`, binding(`after-${i}`, `w${i}`))).status).toBe(201);
      expect((await survivor.admin.delete(`${RBAC}/clusterrolebindings/before-0`)).status).toBe(200);

      const expected = 5 + 10 + 3 + 1;
      const events = await watch.waitFor(expected, 30_000);
      watch.close();
      const causes = events.map((e: any) => `${e.object.cause.operation} ${e.object.cause.name}`);
      expect(new Set(causes).size).toBe(expected);
      expect(causes).toEqual(expect.arrayContaining(['Delete before-0', ...Array.from({ length: 10 }, (_, i) => `Create during-${i}`), 'Create after-2']));
      // In the order of the changes that caused them.
      const revisions = events.map((e: any) => Number(e.object.cause.resourceVersion));
      expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
      const listed = (await survivor.admin.get(`${CHANGES}?fieldSelector=${encodeURIComponent('cause.kind=ClusterRoleBinding')}`)).body.items;
      expect(listed).toHaveLength(expected);
      const lost = listed.filter((c: any) => c.lost);
      expect(lost.map((c: any) => [c.subject.name, c.cause.operation])).toEqual([['u0', 'Delete']]);
    } finally {
      await second?.close();
      await first.close().catch(() => undefined);
      await dropTestSchema(pgUrl, schema);
    }
  });
});
