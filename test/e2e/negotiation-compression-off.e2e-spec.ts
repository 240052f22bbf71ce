import * as https from 'node:https';
import { FeatureGates } from '../../src/config/feature-gates';
import { startTestServer, TestServer } from '../support/test-server';

const ROLES = '/apis/rbac.authorization.platform.io/v1/namespaces/default/roles';

/** `--feature-gates=APIResponseCompression=false`: large responses are never gzip-compressed. */
describe('response compression with the APIResponseCompression gate off', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ options: { featureGates: FeatureGates.from({ APIResponseCompression: false }) } });
    for (const name of ['big-1', 'big-2', 'big-3']) {
      const res = await server.admin.post(ROLES, { metadata: { name, annotations: { pad: 'x'.repeat(60 * 1024) } }, rules: [] });
      expect(res.status).toBe(201);
    }
  });
  afterAll(async () => {
    await server?.close();
  });

  it('sends a list above the threshold uncompressed to a gzip-accepting client', async () => {
    const admin = server.certFor('compression-admin', ['system:masters']);
    const res = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
      const req = https.request(
        new URL(ROLES, server.url),
        { headers: { 'Accept-Encoding': 'gzip' }, ca: server.running.material.caCertPem, cert: admin.cert, key: admin.key, agent: false },
        (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => resolve({ headers: r.headers, body: Buffer.concat(chunks) }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body.length).toBeGreaterThan(128 * 1024);
    expect(JSON.parse(res.body.toString()).items).toHaveLength(3);
  });
});
