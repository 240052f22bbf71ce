import { FeatureGates } from '../../src/config/feature-gates';
import { eventually } from '../support/eventually';
import { HttpsClient } from '../support/https-client';
import { startTestServer, TestServer } from '../support/test-server';

const NS = '/api/v1/namespaces/app';
const MERGE = 'application/merge-patch+json';
const NODE_FORBIDDEN = "no relationship found between node 'n1' and this object";

const container = { name: 'c', image: 'registry.example/app:1.0' };

function podBody(name: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...metadata }, spec: { containers: [container], ...spec } };
}

describe('Node authorization and NodeRestriction (mode Node, selector gates on)', () => {
  let server: TestServer;
  let admin: HttpsClient;
  let n1: HttpsClient;

  async function create(path: string, body: unknown): Promise<void> {
    const res = await admin.post(path, body);
    if (res.status !== 201) throw new Error(`creating ${path} failed: ${res.status} ${res.text}`);
  }

  beforeAll(async () => {
    server = await startTestServer({
      options: {
        authorizationModes: ['Node'],
        enableAdmissionPlugins: ['NodeRestriction'],
        featureGates: FeatureGates.from({ AuthorizeWithSelectors: true, AuthorizeNodeWithSelectors: true }),
      },
    });
    admin = server.admin;
    n1 = server.anonymous.withIdentity(server.certFor('system:node:n1', ['system:nodes']));
    await create('/api/v1/namespaces', { metadata: { name: 'app' } });
    for (const name of ['s1', 's2', 'csi-secret', 'unused']) await create(`${NS}/secrets`, { metadata: { name }, stringData: { key: name } });
    await create(`${NS}/configmaps`, { metadata: { name: 'settings' }, data: { a: '1' } });
    await create(`${NS}/serviceaccounts`, { metadata: { name: 'builder' } });
    await create(`${NS}/persistentvolumeclaims`, {
      metadata: { name: 'data' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    await create('/api/v1/persistentvolumes', {
      metadata: { name: 'vol' },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        claimRef: { namespace: 'app', name: 'data' },
        csi: { driver: 'csi.example', volumeHandle: 'h', nodePublishSecretRef: { namespace: 'app', name: 'csi-secret' } },
      },
    });
    await create(
      `${NS}/pods`,
      podBody('web', {
        nodeName: 'n1',
        serviceAccountName: 'builder',
        containers: [{ ...container, envFrom: [{ configMapRef: { name: 'settings' } }] }],
        volumes: [
          { name: 'creds', secret: { secretName: 's1' } },
          { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
        ],
      }),
    );
    await create(`${NS}/pods`, podBody('other', { nodeName: 'n2', volumes: [{ name: 'creds', secret: { secretName: 's2' } }] }));
    await create('/api/v1/nodes', { metadata: { name: 'n2' } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('serves the core kinds with kube names in discovery', async () => {
    const res = await admin.get('/api/v1');
    expect(res.status).toBe(200);
    const byName = Object.fromEntries(res.body.resources.map((r: any) => [r.name, r]));
    expect(byName.pods).toMatchObject({ kind: 'Pod', namespaced: true, shortNames: ['po'] });
    expect(byName.nodes).toMatchObject({ kind: 'Node', namespaced: false, shortNames: ['no'] });
    expect(byName.persistentvolumes).toMatchObject({ kind: 'PersistentVolume', namespaced: false, shortNames: ['pv'] });
    expect(byName.persistentvolumeclaims).toMatchObject({ kind: 'PersistentVolumeClaim', shortNames: ['pvc'] });
    expect(byName.configmaps).toMatchObject({ kind: 'ConfigMap', shortNames: ['cm'] });
    expect(byName.serviceaccounts).toMatchObject({ kind: 'ServiceAccount', shortNames: ['sa'] });
    expect(byName.secrets).toMatchObject({ kind: 'Secret', namespaced: true });
  });

  it('stores secrets as kube does: stringData folded into data, bad base64 refused', async () => {
    const res = await admin.get(`${NS}/secrets/s1`);
    expect(res.body).toMatchObject({ kind: 'Secret', type: 'Opaque', data: { key: Buffer.from('s1').toString('base64') } });
    expect(res.body.stringData).toBeUndefined();
    const bad = await admin.post(`${NS}/secrets`, { metadata: { name: 'bad' }, data: { k: 'no!' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ reason: 'BadRequest', message: 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 2' });
  });

  it('reads quantities as strings or numbers and answers a bad one with 400', async () => {
    const resources = { limits: { cpu: 0.5, memory: '256Mi' } };
    const ok = await admin.post(`${NS}/pods`, podBody('sized', { containers: [{ ...container, resources }] }));
    expect(ok.status).toBe(201);
    expect(ok.body.spec.containers[0].resources).toEqual({ limits: { cpu: 0.5, memory: '256Mi' }, requests: { cpu: 0.5, memory: '256Mi' } });
    const bad = await admin.post(`${NS}/persistentvolumeclaims`, {
      metadata: { name: 'huge' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: 'lots' } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(
      `PersistentVolumeClaim in version "v1" cannot be handled as a PersistentVolumeClaim: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    );
    expect((await admin.delete(`${NS}/pods/sized`)).status).toBe(200);
  });

  it('lets a node get what its pods use, and nothing else', async () => {
    for (const path of [`${NS}/secrets/s1`, `${NS}/configmaps/settings`, `${NS}/persistentvolumeclaims/data`, '/api/v1/persistentvolumes/vol', `${NS}/secrets/csi-secret`]) {
      const res = await n1.get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
    }
    const other = await n1.get(`${NS}/secrets/s2`);
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message: `secrets "s2" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "app": ${NODE_FORBIDDEN}`,
    });
    expect((await n1.get(`${NS}/secrets/unused`)).status).toBe(403);
  });

  it('refuses lists of secrets but allows one related secret selected by name', async () => {
    const list = await n1.get(`${NS}/secrets`);
    expect(list.status).toBe(403);
    expect(list.body.message).toBe(
      'secrets is forbidden: User "system:node:n1" cannot list resource "secrets" in API group "" in the namespace "app": No Object name found',
    );
    const one = await n1.get(`${NS}/secrets?fieldSelector=metadata.name%3Ds1`);
    expect(one.status).toBe(200);
    expect(one.body.items.map((s: any) => s.metadata.name)).toEqual(['s1']);
  });

  it('authorizes tokens only for the service accounts of its pods', async () => {
    const issued = await n1.post(`${NS}/serviceaccounts/builder/token`, { spec: {} });
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({ kind: 'TokenRequest', status: { token: expect.any(String) } });
    const refused = await n1.post(`${NS}/serviceaccounts/default/token`, { spec: {} });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain(NODE_FORBIDDEN);
  });

  it('limits node and pod reads to its own node with the selector gates', async () => {
    const other = await n1.get('/api/v1/nodes/n2');
    expect(other.status).toBe(403);
    expect(other.body.message).toBe(
      `nodes "n2" is forbidden: User "system:node:n1" cannot get resource "nodes" in API group "" at the cluster scope: node 'n1' cannot read 'n2', only its own Node object`,
    );
    expect((await n1.get('/api/v1/nodes')).status).toBe(403);
    const all = await n1.get('/api/v1/pods');
    expect(all.status).toBe(403);
    expect(all.body.message).toContain('can only list/watch pods with spec.nodeName field selector');
    expect((await n1.get('/api/v1/pods?fieldSelector=spec.nodeName%3Dn2')).status).toBe(403);
    const mine = await n1.get('/api/v1/pods?fieldSelector=spec.nodeName%3Dn1');
    expect(mine.status).toBe(200);
    expect(mine.body.items.map((p: any) => p.metadata.name)).toEqual(['web']);
    expect((await n1.get(`${NS}/pods/web`)).status).toBe(200);
    expect((await n1.get(`${NS}/pods/other`)).status).toBe(403);
  });

  it('selects pods by spec.nodeName in lists and watches, and refuses unknown field labels', async () => {
    const list = await admin.get('/api/v1/pods?fieldSelector=spec.nodeName%3Dn2');
    expect(list.body.items.map((p: any) => p.metadata.name)).toEqual(['other']);
    const bad = await admin.get('/api/v1/pods?fieldSelector=spec.hostname%3Dx');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('field label not supported: spec.hostname');
    const watch = await admin.stream(`${NS}/pods?watch=1&fieldSelector=spec.nodeName%3Dn1`);
    try {
      const [added] = await watch.waitFor(1);
      expect(added).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'web' } } });
    } finally {
      watch.close();
    }
  });

  it('follows pods: a moved pod, a removed reference, a deleted pod', async () => {
    // 'other' moves to n1: its secret becomes readable.
    expect((await admin.patch(`${NS}/pods/other`, { spec: { nodeName: 'n1' } }, MERGE)).status).toBe(200);
    await eventually(async () => expect((await n1.get(`${NS}/secrets/s2`)).status).toBe(200), 5000, 50);
    // Its secret volume is removed: access goes.
    const dropped = await admin.patch(`${NS}/pods/other`, { spec: { volumes: null } }, MERGE);
    expect(dropped.status).toBe(200);
    await eventually(async () => expect((await n1.get(`${NS}/secrets/s2`)).status).toBe(403), 5000, 50);
    // 'web' is deleted: everything it used is out of reach, the PV chain included.
    expect((await admin.delete(`${NS}/pods/web`)).status).toBe(200);
    await eventually(async () => {
      for (const path of [`${NS}/secrets/s1`, `${NS}/configmaps/settings`, '/api/v1/persistentvolumes/vol', `${NS}/secrets/csi-secret`]) {
        expect({ path, status: (await n1.get(path)).status }).toEqual({ path, status: 403 });
      }
    }, 5000, 50);
  });

  it('has no opinion about callers that are not nodes', async () => {
    const alice = server.anonymous.withIdentity(server.certFor('alice', ['devs']));
    const res = await alice.get(`${NS}/secrets/s1`);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('secrets "s1" is forbidden: User "alice" cannot get resource "secrets" in API group "" in the namespace "app"');
    // A node credential for another node name is another node.
    const n2 = server.anonymous.withIdentity(server.certFor('system:node:n2', ['system:nodes']));
    expect((await n2.get(`${NS}/secrets/s1`)).status).toBe(403);
  });

  describe('NodeRestriction', () => {
    it('lets a node register and update only its own Node, without restricted labels', async () => {
      const created = await n1.post('/api/v1/nodes', { metadata: { name: 'n1', labels: { 'platform.io/hostname': 'n1' } } });
      expect(created.status).toBe(201);
      expect((await n1.get('/api/v1/nodes/n1')).status).toBe(200);
      const foreign = await n1.post('/api/v1/nodes', { metadata: { name: 'n3' } });
      expect(foreign.status).toBe(403);
      expect(foreign.body).toMatchObject({ reason: 'Forbidden', message: 'nodes "n3" is forbidden: node "n1" is not allowed to modify node "n3"' });
      const relabel = await n1.patch('/api/v1/nodes/n1', { metadata: { labels: { 'node-restriction.platform.io/pool': 'gpu' } } }, MERGE);
      expect(relabel.status).toBe(403);
      expect(relabel.body.message).toBe('nodes "n1" is forbidden: is not allowed to modify labels: node-restriction.platform.io/pool');
      expect((await n1.patch('/api/v1/nodes/n1', { metadata: { labels: { team: 'infra' } } }, MERGE)).status).toBe(200);
      expect((await n1.patch('/api/v1/nodes/n2', { metadata: { labels: { team: 'infra' } } }, MERGE)).status).toBe(403);
    });

    it('lets a node create mirror pods bound to itself and delete only its own pods', async () => {
      const node = (await admin.get('/api/v1/nodes/n1')).body;
      const owner = { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: node.metadata.uid, controller: true };
      const annotations = { 'platform.io/config.mirror': 'hash' };
      const plain = await n1.post(`${NS}/pods`, podBody('plain', { nodeName: 'n1' }));
      expect(plain.status).toBe(403);
      expect(plain.body.message).toBe(
        'pods "plain" is forbidden: pod does not have "platform.io/config.mirror" annotation, node "n1" can only create mirror pods',
      );
      const withSecret = await n1.post(
        `${NS}/pods`,
        podBody('sneaky', { nodeName: 'n1', volumes: [{ name: 's', secret: { secretName: 's1' } }] }, { annotations, ownerReferences: [owner] }),
      );
      expect(withSecret.status).toBe(403);
      expect(withSecret.body.message).toBe('pods "sneaky" is forbidden: node "n1" can not create pods that reference secrets');
      const mirror = await n1.post(`${NS}/pods`, podBody('static-web', { nodeName: 'n1' }, { annotations, ownerReferences: [owner] }));
      expect(mirror.status).toBe(201);
      await create(`${NS}/pods`, podBody('elsewhere', { nodeName: 'n2' }));
      const foreign = await n1.delete(`${NS}/pods/elsewhere`);
      expect(foreign.status).toBe(403);
      expect(foreign.body.message).toBe('pods "elsewhere" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself');
      expect((await n1.delete(`${NS}/pods/static-web`)).status).toBe(200);
    });
  });

  it('deletes the core kinds with their namespace', async () => {
    await create('/api/v1/namespaces', { metadata: { name: 'temp' } });
    await create('/api/v1/namespaces/temp/secrets', { metadata: { name: 's' } });
    await create('/api/v1/namespaces/temp/configmaps', { metadata: { name: 'c' } });
    await create('/api/v1/namespaces/temp/serviceaccounts', { metadata: { name: 'sa' } });
    await create('/api/v1/namespaces/temp/pods', podBody('p', {}));
    await create('/api/v1/namespaces/temp/persistentvolumeclaims', {
      metadata: { name: 'c' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    expect((await admin.delete('/api/v1/namespaces/temp')).status).toBe(200);
    await eventually(async () => expect((await admin.get('/api/v1/namespaces/temp')).status).toBe(404), 10000, 100);
    for (const kind of ['secrets', 'configmaps', 'serviceaccounts', 'pods', 'persistentvolumeclaims']) {
      const res = await admin.get(`/api/v1/namespaces/temp/${kind}`);
      expect({ kind, items: res.body.items }).toEqual({ kind, items: [] });
    }
  });
});
