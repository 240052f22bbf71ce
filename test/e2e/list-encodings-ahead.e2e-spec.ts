import * as https from 'node:https';
import { SharedInformerFactory } from '../../src/storage/informer/shared-informer-factory';
import { ClientIdentity } from '../support/https-client';
import { startTestServer, TestServer } from '../support/test-server';

const RBAC = '/apis/rbac.authorization.platform.io/v1';
const NAMESPACES = ['warm-b', 'warm-a', 'warm-c'];
const PER_NAMESPACE = 20;

/**
 * Objects written through the API have their list encodings made ahead once writes go quiet
 * (a server that listed them from the store has them made after its list): a list then writes
 * the kept bytes, which must be exactly what encoding the objects gives.
 */
describe('list encodings of written objects', () => {
  let server: TestServer;
  let admin: ClientIdentity;

  function getText(path: string): Promise<string> {
    return new Promise((resolve, reject) => {
      https
        .get(new URL(path, server.url), { headers: { Accept: 'application/json' }, ca: server.running.material.caCertPem, cert: admin.cert, key: admin.key, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`${path}: ${res.statusCode}`))));
          res.on('error', reject);
        })
        .on('error', reject);
    });
  }

  /** Until no informer has encodings to make (bounded). */
  async function encodingsMade(): Promise<void> {
    const factory = server.running.app.get(SharedInformerFactory);
    const deadline = Date.now() + 20_000;
    while (factory.listEncodingsPending() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(factory.listEncodingsPending()).toBe(false);
  }

  beforeAll(async () => {
    server = await startTestServer();
    admin = server.certFor('warm-admin', ['system:masters']);
    for (const name of NAMESPACES) expect((await server.admin.post('/api/v1/namespaces', { metadata: { name } })).status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('serves created objects in a list as the same bytes as their own encoding, in key order', async () => {
    const created: Array<Record<string, unknown>> = [];
    // Interleaved across namespaces, several at a time, as many writers write.
    for (let i = 0; i < PER_NAMESPACE * NAMESPACES.length; i += 6) {
      const batch = Array.from({ length: 6 }, (_, k) => i + k).map((n) => {
        const namespace = NAMESPACES[n % NAMESPACES.length];
        return server.admin.post(`${RBAC}/namespaces/${namespace}/rolebindings`, {
          metadata: { name: `rb-${n}`, namespace, labels: { n: String(n) } },
          roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' },
          subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: `user-${n}` }],
        });
      });
      for (const res of await Promise.all(batch)) {
        expect(res.status).toBe(201);
        created.push(res.body as Record<string, unknown>);
      }
    }
    await encodingsMade();
    const text = await getText(`${RBAC}/rolebindings`);
    const list = JSON.parse(text);
    expect(text).toBe(`${JSON.stringify(list)}\n`);
    const ours = list.items.filter((item: { metadata: { namespace: string } }) => NAMESPACES.includes(item.metadata.namespace));
    const inKeyOrder = [...created].sort((a, b) => {
      const x = a.metadata as { namespace: string; name: string };
      const y = b.metadata as { namespace: string; name: string };
      return x.namespace === y.namespace ? (x.name < y.name ? -1 : 1) : x.namespace < y.namespace ? -1 : 1;
    });
    // Each item is the object the create answered, without the list's type fields, byte for byte.
    expect(ours.map((item: unknown) => JSON.stringify(item))).toEqual(inKeyOrder.map(({ apiVersion: _a, kind: _k, ...rest }) => JSON.stringify(rest)));
    // And a namespace's list, a page of it, and the list again are the same bytes for the same items.
    const again = await getText(`${RBAC}/rolebindings`);
    expect(JSON.parse(again).items).toEqual(list.items);
    const page = JSON.parse(await getText(`${RBAC}/namespaces/warm-a/rolebindings?limit=7`));
    expect(page.items).toEqual(ours.filter((item: { metadata: { namespace: string } }) => item.metadata.namespace === 'warm-a').slice(0, 7));
  });
});
