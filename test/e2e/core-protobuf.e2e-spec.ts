import { Kubectl, kubectlFor } from '../support/kubectl';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * kubectl's typed clients (create configmap/secret/serviceaccount/namespace) send core
 * kinds as protobuf; the objects they create read back as JSON with what was asked for.
 */
describe('kubectl creates core kinds with protobuf bodies', () => {
  let server: TestServer;
  let kubectl: Kubectl;

  beforeAll(async () => {
    server = await startTestServer();
    kubectl = kubectlFor(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  const getJson = async (...args: string[]) => JSON.parse((await kubectl('get', ...args, '-o', 'json')).stdout) as Record<string, any>;

  it('creates a config map from a literal, sending protobuf', async () => {
    // -v=8 logs the request headers: the body really went as protobuf.
    const created = await kubectl('create', 'configmap', 'x', '--from-literal=a=b', '-v=8');
    expect(created.stdout).toContain('configmap/x created');
    expect(created.stderr).toMatch(/Content-Type: application\/vnd\.kubernetes\.protobuf/);

    const got = await getJson('configmap', 'x');
    expect(got).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' } });
    expect(got.data).toEqual({ a: 'b' });
    expect(got.binaryData).toBeUndefined();
  });

  it('creates a generic secret whose data reads back as the base64 of the literal', async () => {
    const created = await kubectl('create', 'secret', 'generic', 's', '--from-literal=k=v');
    expect(created.stdout).toContain('secret/s created');

    const got = await getJson('secret', 's');
    expect(got).toMatchObject({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' }, type: 'Opaque' });
    expect(got.data).toEqual({ k: Buffer.from('v').toString('base64') });
    expect(got.stringData).toBeUndefined();
  });

  it('creates a service account', async () => {
    expect((await kubectl('create', 'serviceaccount', 'sa')).stdout).toContain('serviceaccount/sa created');
    const got = await getJson('serviceaccount', 'sa');
    expect(got).toMatchObject({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'default' } });
    expect(got.metadata.uid).toEqual(expect.any(String));
  });

  it('creates a namespace', async () => {
    expect((await kubectl('create', 'namespace', 'ns2')).stdout).toContain('namespace/ns2 created');
    const got = await getJson('namespace', 'ns2');
    expect(got).toMatchObject({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns2' }, status: { phase: 'Active' } });
  });

  it('lists the created objects through kubectl get', async () => {
    const names = (await kubectl('get', 'configmaps,secrets,serviceaccounts', '-o', 'name')).stdout.split('\n');
    expect(names).toEqual(expect.arrayContaining(['configmap/x', 'secret/s', 'serviceaccount/sa']));
  });
});
