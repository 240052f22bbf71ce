import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificateAuthority, issueClientCertificate } from '../../src/server/certificates';
import { eventually } from '../support/eventually';
import { ClientIdentity } from '../support/https-client';
import { startTestServer, TestServer } from '../support/test-server';
import { writeTokenFile } from '../support/token-file';
import { reviewReply, startTestWebhook, TestWebhook } from '../support/webhook-server';

const SSR = '/apis/authentication.platform.io/v1/selfsubjectreviews';
const ROLES = '/apis/rbac.authorization.platform.io/v1/namespaces/ns1/roles';
const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

/** --requestheader-*: identity headers count only from a proxy whose certificate chains to the proxy CA and names an allowed CN. */
describe('authenticating proxy', () => {
  let dir: string;
  let server: TestServer;
  let authorizer: TestWebhook;
  let proxy: ClientIdentity;
  let unlistedProxy: ClientIdentity;
  let foreign: ClientIdentity;
  let proxyCaPem: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'proxy-e2e-'));
    const proxyCa = createCertificateAuthority();
    proxyCaPem = proxyCa.certPem;
    const foreignCa = createCertificateAuthority();
    writeFileSync(join(dir, 'proxy-ca.crt'), proxyCa.certPem);
    const identity = (ca: { certPem: string; keyPem: string }, cn: string) => {
      const c = issueClientCertificate(ca.certPem, ca.keyPem, cn, ['proxies']);
      return { cert: c.certPem, key: c.keyPem };
    };
    proxy = identity(proxyCa, 'front-proxy');
    unlistedProxy = identity(proxyCa, 'other-proxy');
    foreign = identity(foreignCa, 'front-proxy');
    // The authorization webhook shows what identity later stages see; it allows the proxied users.
    authorizer = await startTestWebhook((sar) => reviewReply('v1', { allowed: String(sar.spec.user).startsWith('proxied-') }));
    server = await startTestServer({
      options: {
        requestHeader: {
          clientCaFile: join(dir, 'proxy-ca.crt'),
          allowedNames: ['front-proxy'],
          usernameHeaders: ['X-Remote-User', 'X-Alt-User'],
          uidHeaders: ['X-Remote-Uid'],
          groupHeaders: ['X-Remote-Group'],
          extraHeaderPrefixes: ['X-Remote-Extra-'],
        },
        tokenAuthFile: writeTokenFile(dir, ['static-token,static-user,uid-s']),
        authorizationModes: ['RBAC', 'Webhook'],
        authorizationWebhook: { configFile: authorizer.writeKubeconfig(dir), version: 'v1', cacheAuthorizedTTLMs: 0, cacheUnauthorizedTTLMs: 0 },
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await authorizer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const whoami = (as: ClientIdentity, headers: Record<string, unknown>) =>
    server.anonymous.post(SSR, { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' }, { as, headers: headers as Record<string, string> });

  const proxied = {
    'X-Remote-User': 'proxied-alice',
    'X-Remote-Uid': 'uid-7',
    'X-Remote-Group': ['dev', 'ops'],
    'X-Remote-Extra-Scopes': ['read', 'write'],
    'X-Remote-Extra-Example.org%2FTeam': 'blue',
  };

  it('maps username, uid, groups and extra (keys lowercased, then percent-decoded) from the trusted proxy', async () => {
    const res = await whoami(proxy, proxied);
    expect(res.status).toBe(201);
    expect(res.body.status.userInfo).toEqual({
      username: 'proxied-alice',
      uid: 'uid-7',
      groups: ['dev', 'ops', 'system:authenticated'],
      extra: { scopes: ['read', 'write'], 'example.org/team': ['blue'] },
    });
  });

  it('takes the first username header with a value', async () => {
    const res = await whoami(proxy, { 'X-Remote-User': '', 'X-Alt-User': 'proxied-bob' });
    expect(res.body.status.userInfo).toEqual({ username: 'proxied-bob', groups: ['system:authenticated'] });
  });

  it('authorizers see the mapped user, never the headers', async () => {
    const res = await server.anonymous.get(ROLES, { as: proxy, headers: proxied as unknown as Record<string, string> });
    expect(res.status).toBe(200);
    expect(authorizer.recorded[authorizer.recorded.length - 1].body.spec).toEqual({
      resourceAttributes: { namespace: 'ns1', verb: 'list', group: 'rbac.authorization.platform.io', version: 'v1', resource: 'roles' },
      user: 'proxied-alice',
      groups: ['dev', 'ops', 'system:authenticated'],
      extra: { 'example.org/team': ['blue'], scopes: ['read', 'write'] },
      uid: 'uid-7',
    });
  });

  it('ignores the headers on a connection with a user certificate (the client CA does not vouch for proxies)', async () => {
    const carol = server.certFor('carol', ['qa']);
    const res = await whoami(carol, proxied);
    expect(res.status).toBe(201);
    expect(res.body.status.userInfo).toEqual({ username: 'carol', groups: ['qa', 'system:authenticated'] });
    const denied = await server.anonymous.get(ROLES, { as: carol, headers: proxied as unknown as Record<string, string> });
    expect(denied.status).toBe(403);
    expect(authorizer.recorded[authorizer.recorded.length - 1].body.spec).toMatchObject({ user: 'carol', groups: ['qa', 'system:authenticated'] });
    expect(authorizer.recorded[authorizer.recorded.length - 1].body.spec.extra).toBeUndefined();
  });

  it('ignores the headers without a client certificate: the request is anonymous', async () => {
    const res = await whoami({}, proxied);
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/^selfsubjectreviews.authentication.platform.io is forbidden: User "system:anonymous" cannot create resource/);
  });

  it('refuses a proxy certificate whose common name is not allowed', async () => {
    const res = await whoami(unlistedProxy, proxied);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('refuses a certificate of another authority, even with an allowed common name', async () => {
    const res = await whoami(foreign, proxied);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('a proxy certificate names no user by itself (it does not chain to the client CA)', async () => {
    const res = await whoami(proxy, {});
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('publishes how it authenticates in kube-system/extension-apiserver-authentication', async () => {
    let data: Record<string, string> = {};
    await eventually(async () => {
      const res = await server.admin.get('/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication');
      expect(res.status).toBe(200);
      data = res.body.data;
    });
    const certificates = (pem: string) => pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
    expect(certificates(data['client-ca-file'])).toEqual(certificates(server.running.material.clientCaPems.join('\n')));
    expect(certificates(data['requestheader-client-ca-file'])).toEqual(certificates(proxyCaPem));
    expect(data).toEqual({
      'client-ca-file': expect.any(String),
      'requestheader-client-ca-file': expect.any(String),
      'requestheader-allowed-names': '["front-proxy"]',
      'requestheader-username-headers': '["X-Remote-User","X-Alt-User"]',
      'requestheader-uid-headers': '["X-Remote-Uid"]',
      'requestheader-group-headers': '["X-Remote-Group"]',
      'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
    });
  });

  it('a bearer token still authenticates on a proxy connection without identity headers', async () => {
    const res = await whoami({ ...proxy, token: 'static-token' }, {});
    expect(res.status).toBe(201);
    expect(res.body.status.userInfo).toEqual({ username: 'static-user', uid: 'uid-s', groups: ['system:authenticated'] });
  });
});
