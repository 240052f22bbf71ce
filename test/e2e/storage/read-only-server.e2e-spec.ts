import { Client } from 'pg';
import { eventually } from '../../support/eventually';
import { createScratchDatabase, describeWithPostgres } from '../../support/postgres';
import { startTestServer, TestServer } from '../../support/test-server';

const CM = '/api/v1/namespaces/default/configmaps';
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });

const READ_ONLY_STATUS = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the storage cannot accept writes now (its database server is read-only); please try again later',
  reason: 'ServiceUnavailable',
  details: { retryAfterSeconds: 1 },
  code: 503,
};

/**
 * The server's database turns read-only under it, as a demoted primary does: its sessions
 * are terminated and the new ones cannot write (`default_transaction_read_only`, which a
 * session takes when it starts). Then the database takes writes again, but the sessions the
 * server opened meanwhile are still read-only: only dropping and opening them again helps.
 */
describeWithPostgres('a database server that turns read-only', (pgUrl) => {
  let db: { url: string; drop(): Promise<void> } | undefined;
  let dbName: string;
  let server: TestServer | undefined;
  let admin: Client | undefined;

  beforeAll(async () => {
    db = await createScratchDatabase(pgUrl);
    dbName = new URL(db.url).pathname.slice(1);
    server = await startTestServer({ databaseUrl: db.url });
    admin = new Client({ connectionString: pgUrl });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.query(`ALTER DATABASE ${dbName} RESET default_transaction_read_only`).catch(() => undefined);
    await server?.close();
    await admin?.end();
    await db?.drop();
  });

  it('answers writes 503 with Retry-After (never 500), fails readyz on storage-writable only, serves reads, and takes writes again on new sessions', async () => {
    expect((await server!.admin.post(CM, configMap('before'))).status).toBe(201);
    expect((await server!.anonymous.get('/readyz')).status).toBe(200);

    await admin!.query(`ALTER DATABASE ${dbName} SET default_transaction_read_only = on`);
    await admin!.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName]);

    // Sessions dropped by the termination answer 503 (unavailable) once; the new ones are read-only.
    await eventually(async () => expect((await server!.admin.post(CM, configMap('refused'))).body).toEqual(READ_ONLY_STATUS), 10_000);
    const answers = await Promise.all([
      server!.admin.post(CM, configMap('refused-1')),
      server!.admin.put(`${CM}/before`, { ...configMap('before'), data: { k: 'changed' } }),
      server!.admin.delete(`${CM}/before`),
    ]);
    for (const res of answers) {
      expect([res.status, res.headers['retry-after']]).toEqual([503, '1']);
      expect(res.text).not.toMatch(/read-only transaction|127\.0\.0\.1|5432/);
    }
    // Reads and decisions are served.
    expect((await server!.admin.get(`${CM}/before`)).body.data).toEqual({ k: 'v' });
    expect((await server!.admin.get(CM)).status).toBe(200);

    const ready = await server!.anonymous.get('/readyz?verbose');
    expect(ready.status).toBe(500);
    expect(ready.text).toContain('[+]storage ok\n[+]storage-space ok\n[-]storage-writable failed: reason withheld\n');
    expect((await server!.anonymous.get('/readyz/storage-writable')).text).toBe('internal server error: the store is read-only (a standby, or a server set read-only)\n');
    // Alive all the same.
    expect((await server!.anonymous.get('/livez')).status).toBe(200);

    // The database takes writes again, but the server's current sessions began read-only.
    await admin!.query(`ALTER DATABASE ${dbName} RESET default_transaction_read_only`);
    const readOnlySessions = await admin!.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
      [dbName],
    );
    expect(readOnlySessions.rows[0].n).toBeGreaterThan(0);
    // A write on one of them fails, and with it every session opened so far is let go of.
    await eventually(async () => expect((await server!.admin.post(CM, configMap('after'))).status).toBe(201), 15_000, 200);
    await eventually(async () => expect((await server!.anonymous.get('/readyz')).status).toBe(200), 15_000, 200);
    expect((await server!.admin.get(`${CM}/refused`)).status).toBe(404);
    expect((await server!.admin.put(`${CM}/before`, { ...(await server!.admin.get(`${CM}/before`)).body, data: { k: 'changed' } })).status).toBe(200);
  }, 120_000);
});
