import { Logger } from '@nestjs/common';
import * as crypto from 'node:crypto';
import * as https from 'node:https';
import { join } from 'node:path';
import { createCertificateAuthority, issueClientCertificate } from '../../src/server/certificates';
import { ANONYMOUS_WITH_ALWAYS_ALLOW } from '../../src/server/configuration';
import { TestClock } from '../support/test-clock';
import { startTestServer, TestServer } from '../support/test-server';
import { writeTokenFile } from '../support/token-file';

const RBAC = '/apis/rbac.authorization.platform.io/v1';

function tokenFile(dir: string): string {
  return writeTokenFile(dir, ['root-token,root,uid-root,"system:masters,ops"', 'alice-token,alice,uid-alice,"devs,qa"', 'bob-token,bob,uid-bob']);
}

describe('authentication and the authorizer chain (AlwaysDeny)', () => {
  let server: TestServer;
  const clock = new TestClock();

  beforeAll(async () => {
    const dir = require('node:fs').mkdtempSync(join(require('node:os').tmpdir(), 'tokens-'));
    server = await startTestServer({ options: { authorizationModes: ['AlwaysDeny'], tokenAuthFile: tokenFile(dir) }, clock });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('lets system:masters through before any mode (client certificate and token)', async () => {
    expect((await server.admin.get(`${RBAC}/clusterroles`)).status).toBe(200);
    expect((await server.anonymous.get(`${RBAC}/clusterroles`, { as: { token: 'root-token' } })).status).toBe(200);
    const cert = server.certFor('carol', ['system:masters']);
    expect((await server.anonymous.get('/api/v1/namespaces', { as: cert })).status).toBe(200);
  });

  it('denies others with kube\'s Forbidden message and the authorizer\'s reason', async () => {
    const res = await server.anonymous.get(`${RBAC}/namespaces/default/roles`, { as: { token: 'alice-token' } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      message:
        'roles.rbac.authorization.platform.io is forbidden: User "alice" cannot list resource "roles" in API group "rbac.authorization.platform.io" in the namespace "default": Everything is forbidden.',
      details: { group: 'rbac.authorization.platform.io', kind: 'roles' },
    });
    const named = await server.anonymous.get(`${RBAC}/clusterroles/view`, { as: { token: 'bob-token' } });
    expect(named.body.message).toBe(
      'clusterroles.rbac.authorization.platform.io "view" is forbidden: User "bob" cannot get resource "clusterroles" in API group "rbac.authorization.platform.io" at the cluster scope: Everything is forbidden.',
    );
    const cert = server.certFor('dave', ['devs']);
    expect((await server.anonymous.post('/api/v1/namespaces', { metadata: { name: 'x' } }, { as: cert })).status).toBe(403);
  });

  it('treats requests without credentials as system:anonymous', async () => {
    const res = await server.anonymous.get('/apis');
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('forbidden: User "system:anonymous" cannot get path "/apis": Everything is forbidden.');
  });

  it('answers 401 for a bad token or a certificate from an unknown CA', async () => {
    const bad = await server.anonymous.get(`${RBAC}/clusterroles`, { as: { token: 'nope' } });
    expect(bad.status).toBe(401);
    expect(bad.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401, message: 'Unauthorized' });
    const foreignCa = createCertificateAuthority();
    const foreign = issueClientCertificate(foreignCa.certPem, foreignCa.keyPem, 'mallory', ['system:masters']);
    const res = await server.anonymous.get(`${RBAC}/clusterroles`, { as: { cert: foreign.certPem, key: foreign.keyPem } });
    expect(res.status).toBe(401);
  });

  it('stops accepting a client certificate that expires while its connection stays open', async () => {
    const m = server.running.material;
    // Valid for an hour: the TLS handshake (real time) accepts it, then the server's clock passes its end.
    const shortLived = issueClientCertificate(m.clientCaPems[0], m.caKeyPem!, 'short-lived', ['system:masters'], 1 / 24);
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: m.caCertPem, cert: shortLived.certPem, key: shortLived.keyPem });
    const get = () =>
      new Promise<{ status: number; reused: boolean; body: any }>((resolve, reject) => {
        const req = https.request(new URL(`${RBAC}/clusterroles`, server.url), { agent }, (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode!, reused: req.reusedSocket, body: JSON.parse(text) }));
        });
        req.on('error', reject);
        req.end();
      });
    try {
      expect((await get()).status).toBe(200);
      const notAfter = Date.parse(new crypto.X509Certificate(shortLived.certPem).validTo);
      clock.advance(notAfter - clock.now() + 1000);
      const late = await get();
      expect(late.reused).toBe(true);
      expect(late.status).toBe(401);
      expect(late.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    } finally {
      agent.destroy();
    }
  });

  it('keeps health and version open to anonymous callers', async () => {
    for (const path of ['/livez', '/readyz', '/healthz']) {
      const res = await server.anonymous.get(path);
      expect({ path, status: res.status, text: res.text }).toEqual({ path, status: 200, text: 'ok' });
    }
    const verbose = await server.anonymous.get('/readyz?verbose');
    expect(verbose.text).toContain('[+]storage ok');
    expect(verbose.text.trim().endsWith('readyz check passed')).toBe(true);
    const excluded = await server.anonymous.get('/livez?verbose&exclude=storage');
    expect(excluded.text).toContain('[+]storage excluded: ok');
    expect((await server.anonymous.get('/readyz/storage')).status).toBe(200);
    expect((await server.anonymous.get('/readyz/nope')).status).toBe(404);
    const bootstrap = await server.anonymous.get('/readyz/poststarthook/rbac/bootstrap-roles');
    expect({ status: bootstrap.status, text: bootstrap.text }).toEqual({ status: 200, text: 'ok' });
    const version = await server.anonymous.get('/version');
    expect(version.status).toBe(200);
    expect(version.body).toMatchObject({ major: '1', minor: '32' });
  });
});

describe('anonymous access settings', () => {
  let dir: string;
  beforeAll(() => (dir = require('node:fs').mkdtempSync(join(require('node:os').tmpdir(), 'anonymous-'))));
  afterAll(() => require('node:fs').rmSync(dir, { recursive: true, force: true }));

  it('turns anonymous requests off under AlwaysAllow unless --anonymous-auth=true is given', async () => {
    const open = await startTestServer({ options: { authorizationModes: ['AlwaysAllow'], tokenAuthFile: tokenFile(dir) } });
    try {
      const res = await open.anonymous.get(`${RBAC}/clusterroles`);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401, message: 'Unauthorized' });
      // Authenticated callers are all allowed.
      expect((await open.anonymous.get(`${RBAC}/clusterroles`, { as: { token: 'bob-token' } })).status).toBe(200);
    } finally {
      await open.close();
    }
  });

  it('lets anonymous requests through AlwaysAllow when --anonymous-auth=true is given explicitly, with a warning', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const open = await startTestServer({ options: { authorizationModes: ['AlwaysAllow'], anonymousAuth: true } });
    try {
      expect(warn).toHaveBeenCalledWith(ANONYMOUS_WITH_ALWAYS_ALLOW);
      const res = await open.anonymous.get(`${RBAC}/clusterroles`);
      expect(res.status).toBe(200);
      expect(res.body.kind).toBe('ClusterRoleList');
    } finally {
      warn.mockRestore();
      await open.close();
    }
  });

  it('keeps anonymous requests under an --authorization-config whose only authorizer is AlwaysAllow (kube looks at --authorization-mode only)', async () => {
    const config = join(dir, 'allow-all.yaml');
    require('node:fs').writeFileSync(
      config,
      'apiVersion: apiserver.config.platform.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- {type: AlwaysAllow, name: alwaysallow}\n',
    );
    const open = await startTestServer({ options: { authorizationConfigFile: config } });
    try {
      expect((await open.anonymous.get(`${RBAC}/clusterroles`)).status).toBe(200);
    } finally {
      await open.close();
    }
  });

  it('--anonymous-auth=false makes requests without credentials 401', async () => {
    const closed = await startTestServer({ options: { anonymousAuth: false } });
    try {
      const res = await closed.anonymous.get(`${RBAC}/clusterroles`);
      expect(res.status).toBe(401);
      expect(res.body.reason).toBe('Unauthorized');
      expect((await closed.admin.get(`${RBAC}/clusterroles`)).status).toBe(200);
    } finally {
      await closed.close();
    }
  });
});

describe('unknown paths (authorization runs before routing, as in kube)', () => {
  let server: TestServer;
  const bob = { token: 'bob-token' };

  beforeAll(async () => {
    const dir = require('node:fs').mkdtempSync(join(require('node:os').tmpdir(), 'tokens-'));
    server = await startTestServer({ options: { tokenAuthFile: tokenFile(dir) } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers 403 to anonymous and unauthorized callers, without telling whether the path exists', async () => {
    for (const [method, path] of [
      ['GET', '/no/such/path'],
      ['POST', '/no/such/path'],
      ['GET', '/'],
      ['DELETE', '/version'],
    ] as const) {
      const anonymous = await server.anonymous.request(method, path);
      expect({ path, status: anonymous.status, body: anonymous.body }).toEqual({
        path,
        status: 403,
        body: expect.objectContaining({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'Forbidden',
          message: `forbidden: User "system:anonymous" cannot ${method.toLowerCase()} path "${path}"`,
          code: 403,
        }),
      });
      const unauthorized = await server.anonymous.request(method, path, { as: bob });
      expect({ path, status: unauthorized.status, message: unauthorized.body.message }).toEqual({
        path,
        status: 403,
        message: `forbidden: User "bob" cannot ${method.toLowerCase()} path "${path}"`,
      });
    }
  });

  it('answers 403 for unknown resources and groups to those who may not list them', async () => {
    const unknownResource = await server.anonymous.get(`${RBAC}/widgets`);
    expect(unknownResource.status).toBe(403);
    expect(unknownResource.body.message).toBe(
      'widgets.rbac.authorization.platform.io is forbidden: User "system:anonymous" cannot list resource "widgets" in API group "rbac.authorization.platform.io" at the cluster scope',
    );
    const unknownGroup = await server.anonymous.get('/apis/nope.example.com/v1/things', { as: bob });
    expect(unknownGroup.status).toBe(403);
    expect(unknownGroup.body.message).toBe(
      'things.nope.example.com is forbidden: User "bob" cannot list resource "things" in API group "nope.example.com" at the cluster scope',
    );
  });

  it("answers kube's 404 to authorized callers", async () => {
    for (const path of ['/no/such/path', '/', `${RBAC}/widgets`, '/apis/nope.example.com/v1/things', '/api/v1/namespaces/default/widgets/w']) {
      const res = await server.admin.get(path);
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 404,
        body: expect.objectContaining({ kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404, message: expect.any(String) }),
      });
    }
    expect((await server.admin.get('/no/such/path')).body.message).toBe('the server could not find the requested resource');
    // Public paths stay public.
    expect((await server.anonymous.get('/livez')).status).toBe(200);
  });
});
