import * as https from 'node:https';
import { IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { STREAMED_LIST_CHARS } from '../../src/runtime/offload/list-stream';
import { ClientIdentity } from '../support/https-client';
import { startTestServer, TestServer } from '../support/test-server';

const NS = 'large-lists';
const ROLES = `/apis/rbac.authorization.platform.io/v1/namespaces/${NS}/roles`;
/** Roles of about 60 KiB each: enough of them make a list past the streaming threshold. */
const PAD = 60 * 1024;
const COUNT = Math.ceil((STREAMED_LIST_CHARS * 1.5) / PAD);

/** A list larger than the streaming threshold is written as its items are encoded: the same JSON, in chunks. */
describe('a large list is streamed', () => {
  let server: TestServer;
  let admin: ClientIdentity;

  function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const req = https.request(
        new URL(path, server.url),
        { method: 'GET', headers, ca: server.running.material.caCertPem, cert: admin.cert, key: admin.key, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  beforeAll(async () => {
    server = await startTestServer();
    admin = server.certFor('large-list-admin', ['system:masters']);
    expect((await server.admin.post('/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
    for (let i = 0; i < COUNT; i++) {
      const res = await server.admin.post(ROLES, { metadata: { name: `big-${String(i).padStart(3, '0')}`, annotations: { pad: 'x'.repeat(PAD) } }, rules: [] });
      expect(res.status).toBe(201);
    }
  });
  afterAll(async () => {
    await server?.close();
  });

  it('sends the whole list as JSON in chunks, without a Content-Length', async () => {
    const res = await get(ROLES, { Accept: 'application/json' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['transfer-encoding']).toBe('chunked');
    const text = res.body.toString('utf8');
    expect(text.endsWith('}\n')).toBe(true);
    const list = JSON.parse(text);
    expect(list).toMatchObject({ apiVersion: 'rbac.authorization.platform.io/v1', kind: 'RoleList', metadata: { resourceVersion: expect.any(String) } });
    expect(list.items.map((r: { metadata: { name: string } }) => r.metadata.name)).toEqual(Array.from({ length: COUNT }, (_, i) => `big-${String(i).padStart(3, '0')}`));
    // The same bytes as the JSON of the list.
    expect(text).toBe(`${JSON.stringify(list)}\n`);
  });

  it('compresses the stream when the client accepts gzip, to the same JSON', async () => {
    const plain = await get(ROLES, { Accept: 'application/json' });
    const list = JSON.parse(plain.body.toString('utf8'));
    const res = await get(`${ROLES}?resourceVersion=${list.metadata.resourceVersion}&resourceVersionMatch=Exact`, { Accept: 'application/json', 'Accept-Encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers.vary).toBe('Accept-Encoding');
    expect(JSON.parse(gunzipSync(res.body).toString('utf8'))).toEqual(list);
  });

  it('answers Table and a small page as before', async () => {
    const table = await get(`${ROLES}?limit=2`, { Accept: 'application/json;as=Table;v=v1;g=meta.platform.io' });
    expect(table.status).toBe(200);
    expect(table.headers['content-length']).toBeDefined();
    expect(JSON.parse(table.body.toString('utf8'))).toMatchObject({ kind: 'Table', rows: [{}, {}], metadata: { continue: expect.any(String) } });
  });
});
