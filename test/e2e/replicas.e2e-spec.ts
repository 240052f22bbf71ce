import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueClientCertificate } from '../../src/server/certificates';
import { HttpsClient } from '../support/https-client';
import { createScratchDatabase, describeWithPostgres } from '../support/postgres';
import { startTestServer, TestServer } from '../support/test-server';

const MAIN = join(__dirname, '..', '..', 'dist', 'src', 'main.js');
const CR = '/apis/rbac.authorization.platform.io/v1/clusterroles';
const RB = '/apis/rbac.authorization.platform.io/v1/namespaces/default/rolebindings';
const SAR = '/apis/authorization.platform.io/v1/subjectaccessreviews';
/** Rounds each way of the decision consistency test (the reliability probe ran 500). */
const CONSISTENCY_ROUNDS = 250;

/**
 * Two servers on one PostgreSQL: this test process runs one, a separate server process the
 * other. A watcher on the first must see every write made through the second, in order.
 */
describeWithPostgres('several replicas on one PostgreSQL', (pgUrl) => {
  let db: { url: string; drop(): Promise<void> } | undefined;
  let local: TestServer | undefined;
  let child: ChildProcess | undefined;
  let remote: HttpsClient | undefined;
  let dataDir: string;

  beforeAll(async () => {
    db = await createScratchDatabase(pgUrl);
    local = await startTestServer({ databaseUrl: db.url });
    dataDir = mkdtempSync(join(tmpdir(), 'platform-replica-'));
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: db.url };
    delete env.NODE_OPTIONS;
    child = spawn(process.execPath, [MAIN, '--data-dir', dataDir, '--secure-port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`replica did not start: ${out}`)), 30000);
      const onData = (c: Buffer) => {
        out += c.toString();
        const m = /serving on (https:\/\/\S+)\n/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      };
      child!.stdout!.on('data', onData);
      child!.stderr!.on('data', onData);
    });
    const ca = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
    const admin = issueClientCertificate(ca, readFileSync(join(dataDir, 'pki', 'ca.key'), 'utf8'), 'replica-admin', ['system:masters']);
    remote = new HttpsClient(url, ca, { cert: admin.certPem, key: admin.keyPem });
  });

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child!.once('exit', r));
    }
    await local?.close();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers every write made through one replica to a watcher on the other, in order, exactly once', async () => {
    const start = await local!.admin.get(CR);
    const watch = await local!.admin.stream(`${CR}?watch=1&resourceVersion=${start.body.metadata.resourceVersion}`);
    const expected: Array<[string, string, string]> = [];
    for (let i = 0; i < 30; i++) {
      const created = await remote!.post(CR, { metadata: { name: `rep-${i}` }, rules: [] });
      expect(created.status).toBe(201);
      expected.push(['ADDED', `rep-${i}`, created.body.metadata.resourceVersion]);
      if (i % 3 === 0) {
        const patched = await remote!.patch(`${CR}/rep-${i}`, { metadata: { labels: { i: String(i) } } }, 'application/merge-patch+json');
        expected.push(['MODIFIED', `rep-${i}`, patched.body.metadata.resourceVersion]);
      }
      if (i % 5 === 0) {
        const deleted = await remote!.delete(`${CR}/rep-${i}`);
        expect(deleted.status).toBe(200);
        expected.push(['DELETED', `rep-${i}`, '']);
      }
    }
    // The barrier: one more write; its event is the last, so nothing was delivered twice before it.
    const barrier = await remote!.post(CR, { metadata: { name: 'rep-barrier' }, rules: [] });
    expect(barrier.status).toBe(201);
    const events = await watch.waitFor(expected.length + 1, 15000);
    watch.close();
    expect(events[expected.length].object.metadata.name).toBe('rep-barrier');
    events.pop();
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual(expected.map(([t, n]) => [t, n]));
    events.forEach((e, i) => {
      if (expected[i][2]) expect(e.object.metadata.resourceVersion).toBe(expected[i][2]);
    });
    const rvs = events.map((e) => BigInt(e.object.metadata.resourceVersion));
    for (let i = 1; i < rvs.length; i++) expect(rvs[i] > rvs[i - 1]).toBe(true);
    // Reads through either replica agree.
    const a = await local!.admin.get(CR);
    const b = await remote!.get(CR);
    expect(a.body.items.map((x: any) => x.metadata.name)).toEqual(b.body.items.map((x: any) => x.metadata.name));
  });

  it('delivers writes made through both replicas at once to a watcher on one, each exactly once, in revision order', async () => {
    const start = await local!.admin.get(CR);
    const watch = await local!.admin.stream(`${CR}?watch=1&resourceVersion=${start.body.metadata.resourceVersion}`);
    // Local and foreign writes interleave: the watcher's server takes its own from its commits, the others from the log.
    const writes = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const through = i % 2 === 0 ? local!.admin : remote!;
        const created = await through.post(CR, { metadata: { name: `mixed-${i}` }, rules: [] });
        expect(created.status).toBe(201);
        return { name: `mixed-${i}`, revision: BigInt(created.body.metadata.resourceVersion) };
      }),
    );
    const expected = writes.sort((a, b) => (a.revision < b.revision ? -1 : 1)).map((w) => w.name);
    const barrier = await remote!.post(CR, { metadata: { name: 'mixed-barrier' }, rules: [] });
    expect(barrier.status).toBe(201);
    const events = await watch.waitFor(expected.length + 1, 15000);
    watch.close();
    expect(events.map((e) => e.object.metadata.name)).toEqual([...expected, 'mixed-barrier']);
    expect(events.every((e) => e.type === 'ADDED')).toBe(true);
  });

  it('no decision on one replica contradicts a binding created or deleted through the other (the "new enemy" problem)', async () => {
    const may = async (through: HttpsClient, user: string): Promise<boolean> => {
      const res = await through.post(SAR, {
        apiVersion: 'authorization.platform.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user, resourceAttributes: { namespace: 'default', verb: 'get', resource: 'configmaps' } },
      });
      expect(res.status).toBe(201);
      return res.body.status.allowed === true;
    };
    const stale = { afterCreate: 0, afterDelete: 0 };
    for (let i = 0; i < CONSISTENCY_ROUNDS; i++) {
      // Each round writes through one replica and asks the other, alternating.
      const [writer, reader] = i % 2 === 0 ? [remote!, local!.admin] : [local!.admin, remote!];
      const user = `enemy-${i}`;
      const created = await writer.post(RB, {
        metadata: { name: user },
        roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: user }],
      });
      expect(created.status).toBe(201);
      if (!(await may(reader, user))) stale.afterCreate++;
      expect((await writer.delete(`${RB}/${user}`)).status).toBe(200);
      if (await may(reader, user)) stale.afterDelete++;
    }
    expect(stale).toEqual({ afterCreate: 0, afterDelete: 0 });
  });
});
