import { loadJose } from '../../src/authentication/serviceaccount/jose';
import { eventually } from '../support/eventually';
import { startTestServer, TestServer } from '../support/test-server';

const WHOAMI = '/apis/authentication.platform.io/v1/selfsubjectreviews';
const SECRETS = '/api/v1/namespaces/kube-system/secrets';
const CLUSTER_INFO = '/api/v1/namespaces/kube-public/configmaps/cluster-info';

function tokenSecret(id: string, secret: string, data: Record<string, string> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}` },
    type: 'bootstrap.platform.io/token',
    stringData: { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true', ...data },
  };
}

describe('bootstrap tokens and the token controllers', () => {
  let server: TestServer;

  async function whoami(token: string) {
    return server.anonymous.post(WHOAMI, { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' }, { as: { token } });
  }

  beforeAll(async () => {
    server = await startTestServer({ options: { enableBootstrapTokenAuth: true, controllers: ['*', 'tokencleaner', 'bootstrapsigner'] } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('authenticates a bootstrap token as system:bootstrap:<id> with its extra groups', async () => {
    const created = await server.admin.post(SECRETS, tokenSecret('abcdef', '0123456789abcdef', { 'auth-extra-groups': 'system:bootstrappers:worker,system:bootstrappers:a' }));
    expect(created.status).toBe(201);
    const me = await whoami('abcdef.0123456789abcdef');
    expect(me.status).toBe(201);
    expect(me.body.status.userInfo).toEqual({
      username: 'system:bootstrap:abcdef',
      groups: ['system:bootstrappers', 'system:bootstrappers:a', 'system:bootstrappers:worker', 'system:authenticated'],
    });
    for (const bad of ['abcdef.0123456789abcdee', 'abcdeg.0123456789abcdef', 'abcdef.0123456789abcde', 'ABCDEF.0123456789ABCDEF']) {
      const res = await whoami(bad);
      expect({ bad, status: res.status, message: res.body.message }).toEqual({ bad, status: 401, message: 'Unauthorized' });
    }
  });

  it('refuses tokens that are expired, not for authentication, or whose Secret is not a bootstrap token', async () => {
    const past = new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    await server.admin.post(SECRETS, tokenSecret('expird', 'aaaaaaaaaaaaaaaa', { expiration: past }));
    await server.admin.post(SECRETS, tokenSecret('nousag', 'bbbbbbbbbbbbbbbb', { 'usage-bootstrap-authentication': 'false' }));
    await server.admin.post(SECRETS, { metadata: { name: 'bootstrap-token-opaque' }, stringData: { 'token-id': 'opaque', 'token-secret': 'cccccccccccccccc' } });
    for (const token of ['expird.aaaaaaaaaaaaaaaa', 'nousag.bbbbbbbbbbbbbbbb', 'opaque.cccccccccccccccc']) {
      expect((await whoami(token)).status).toBe(401);
    }
  });

  it('validates bootstrap token Secrets as kube does', async () => {
    const bad = await server.admin.post(
      SECRETS,
      tokenSecret('abc', 'short', { expiration: 'tomorrow', 'auth-extra-groups': 'system:masters' }),
    );
    expect(bad.status).toBe(422);
    const fields = bad.body.details.causes.map((c: { field: string }) => c.field).sort();
    expect(fields).toEqual(['data[auth-extra-groups]', 'data[expiration]', 'data[token-id]', 'data[token-secret]']);
    expect(bad.body.message).not.toContain('short');
    const misnamed = await server.admin.post(SECRETS, { ...tokenSecret('zzzzzz', 'dddddddddddddddd'), metadata: { name: 'bootstrap-token-yyyyyy' } });
    expect(misnamed.status).toBe(422);
    expect(misnamed.body.details.causes[0].field).toBe('metadata.name');
  });

  it('tokencleaner deletes a bootstrap token Secret once it expires', async () => {
    const soon = new Date(Date.now() + 3000).toISOString().replace(/\.\d+Z$/, 'Z');
    expect((await server.admin.post(SECRETS, tokenSecret('soonxx', 'eeeeeeeeeeeeeeee', { expiration: soon }))).status).toBe(201);
    expect((await whoami('soonxx.eeeeeeeeeeeeeeee')).status).toBe(201);
    await eventually(async () => expect((await server.admin.get(`${SECRETS}/bootstrap-token-soonxx`)).status).toBe(404), 15000, 250);
    await eventually(async () => expect((await whoami('soonxx.eeeeeeeeeeeeeeee')).status).toBe(401), 2000, 20);
  });

  it('bootstrapsigner signs cluster-info for signing tokens, readable without credentials', async () => {
    const kubeconfig = 'apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://example.test:6443\n  name: ""\n';
    expect((await server.admin.post('/api/v1/namespaces/kube-public/configmaps', { metadata: { name: 'cluster-info' }, data: { kubeconfig } })).status).toBe(201);
    await server.admin.post(SECRETS, tokenSecret('signer', 'ffffffffffffffff', { 'usage-bootstrap-signing': 'true' }));
    await server.admin.post(SECRETS, tokenSecret('nosign', 'gggggggggggggggg'));
    let signature = '';
    await eventually(async () => {
      const res = await server.anonymous.get(CLUSTER_INFO);
      expect(res.status).toBe(200);
      signature = res.body.data['jws-kubeconfig-signer'];
      expect(signature).toMatch(/^[\w-]+\.\.[\w-]+$/);
    }, 15000, 250);
    const info = (await server.anonymous.get(CLUSTER_INFO)).body;
    expect(Object.keys(info.data).filter((k) => k.startsWith('jws-'))).toEqual(['jws-kubeconfig-signer']);

    // A verifier re-attaches the payload and insists on HS256 with the whole token as key.
    const jose = await loadJose();
    const [header, , sig] = signature.split('.');
    const verified = await jose.compactVerify(`${header}.${Buffer.from(kubeconfig).toString('base64url')}.${sig}`, Buffer.from('signer.ffffffffffffffff'), {
      algorithms: ['HS256'],
    });
    expect(verified.protectedHeader).toEqual({ alg: 'HS256', kid: 'signer' });
    await expect(
      jose.compactVerify(`${header}.${Buffer.from(kubeconfig + 'x').toString('base64url')}.${sig}`, Buffer.from('signer.ffffffffffffffff'), { algorithms: ['HS256'] }),
    ).rejects.toThrow();
    // Anonymous callers read cluster-info and nothing else there.
    expect((await server.anonymous.get('/api/v1/namespaces/kube-public/configmaps')).status).toBe(403);

    await server.admin.delete(`${SECRETS}/bootstrap-token-signer`);
    await eventually(async () => expect((await server.anonymous.get(CLUSTER_INFO)).body.data['jws-kubeconfig-signer']).toBeUndefined(), 15000, 250);
  });

  it('creates the default ServiceAccount in every namespace, again when it is deleted', async () => {
    await server.admin.post('/api/v1/namespaces', { metadata: { name: 'team-a' } });
    await eventually(async () => expect((await server.admin.get('/api/v1/namespaces/team-a/serviceaccounts/default')).status).toBe(200), 15000, 250);
    const first = (await server.admin.get('/api/v1/namespaces/team-a/serviceaccounts/default')).body.metadata.uid;
    await server.admin.delete('/api/v1/namespaces/team-a/serviceaccounts/default');
    await eventually(async () => {
      const res = await server.admin.get('/api/v1/namespaces/team-a/serviceaccounts/default');
      expect(res.status).toBe(200);
      expect(res.body.metadata.uid).not.toBe(first);
    }, 15000, 250);
    expect((await server.admin.get('/api/v1/namespaces/kube-system/serviceaccounts/default')).status).toBe(200);
  });

  it('fills legacy token Secrets; the token works while the Secret exists', async () => {
    const account = await server.admin.post('/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'legacy' } });
    await server.admin.post('/api/v1/namespaces/default/secrets', {
      metadata: { name: 'legacy-token', annotations: { 'platform.io/service-account.name': 'legacy' } },
      type: 'platform.io/service-account-token',
    });
    let token = '';
    await eventually(async () => {
      const secret = (await server.admin.get('/api/v1/namespaces/default/secrets/legacy-token')).body;
      expect(secret.data?.token).toBeDefined();
      expect(Buffer.from(secret.data['ca.crt'], 'base64').toString()).toBe(server.running.material.caCertPem);
      expect(Buffer.from(secret.data.namespace, 'base64').toString()).toBe('default');
      expect(secret.metadata.annotations['platform.io/service-account.uid']).toBe(account.body.metadata.uid);
      token = Buffer.from(secret.data.token, 'base64').toString();
    }, 15000, 250);
    const me = await whoami(token);
    expect(me.status).toBe(201);
    expect(me.body.status.userInfo).toMatchObject({ username: 'system:serviceaccount:default:legacy', uid: account.body.metadata.uid });
    await server.admin.delete('/api/v1/namespaces/default/secrets/legacy-token');
    await eventually(async () => expect((await whoami(token)).status).toBe(401), 2000, 20);
  });

  it('deletes a legacy token Secret whose account is gone', async () => {
    await server.admin.post('/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'doomed' } });
    await server.admin.post('/api/v1/namespaces/default/secrets', {
      metadata: { name: 'doomed-token', annotations: { 'platform.io/service-account.name': 'doomed' } },
      type: 'platform.io/service-account-token',
    });
    await eventually(async () => expect((await server.admin.get('/api/v1/namespaces/default/secrets/doomed-token')).body.data?.token).toBeDefined(), 15000, 250);
    await server.admin.delete('/api/v1/namespaces/default/serviceaccounts/doomed');
    await eventually(async () => expect((await server.admin.get('/api/v1/namespaces/default/secrets/doomed-token')).status).toBe(404), 15000, 250);
  });
});
