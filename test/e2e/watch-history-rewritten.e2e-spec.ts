import { startTestServer, TestServer } from '../support/test-server';
import { DATABASE } from '../../src/storage/storage.module';
import { Database } from '../../src/storage/engine/database';

const CM = '/api/v1/namespaces/default/configmaps';
const cm = (name: string) => ({ metadata: { name, labels: { suite: 'rewritten' } }, data: { v: name } });

/**
 * A failover that lost the last commits the watches were sent, made by hand on the log: the
 * new primary's log ends before them and its next write takes one of their revisions. A watch
 * over HTTP then ends with kube's 410 Expired ERROR event (its client lists again), and a list
 * shows the store as it is.
 */
describe('watch when a failover lost commits it was sent', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('ends with an ERROR event, 410 Expired, and a list shows what the store holds', async () => {
    const first = await server.admin.post(CM, cm('kept'));
    const watch = await server.admin.stream(`${CM}?watch=1&labelSelector=suite%3Drewritten&resourceVersion=${first.body.metadata.resourceVersion}`);
    const lost = await server.admin.post(CM, cm('lost-1'));
    await server.admin.post(CM, cm('lost-2'));
    expect((await watch.waitFor(2)).map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['ADDED', 'lost-1'],
      ['ADDED', 'lost-2'],
    ]);

    const db = server.running.app.get<Database>(DATABASE);
    const keep = String(BigInt(lost.body.metadata.resourceVersion) - 1n);
    // Under the revision counter's lock, as writers take it: no write of the server's own controllers is half done.
    await db.dataSource.transaction(async (tx) => {
      await tx.query(`SELECT revision FROM kv_revision WHERE id = 1 FOR UPDATE`);
      await tx.query(`DELETE FROM kv_log WHERE revision > $1`, [keep]);
      await tx.query(`DELETE FROM kv_current WHERE revision > $1`, [keep]);
      await tx.query(`UPDATE kv_revision SET revision = $1 WHERE id = 1`, [keep]);
    });
    // The next write (this one or a controller's) takes the revision the watch was sent `lost-1` at.
    await server.admin.post(CM, cm('after'));

    const events = await watch.waitFor(3);
    await watch.ended;
    expect(events.slice(2)).toEqual([
      { type: 'ERROR', object: expect.objectContaining({ kind: 'Status', status: 'Failure', code: 410, reason: 'Expired' }) },
    ]);
    const list = await server.admin.get(`${CM}?labelSelector=suite%3Drewritten`);
    expect(list.body.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort()).toEqual(['after', 'kept']);
  });
});
