import { createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as YAML from 'yaml';
import { loadJose } from '../../src/authentication/serviceaccount/jose';
import { eventually } from '../support/eventually';
import { kubectlFor, kubectlWith } from '../support/kubectl';
import { startTestServer, TestServer } from '../support/test-server';

const RBAC = '/apis/rbac.authorization.platform.io/v1';
const WHOAMI = '/apis/authentication.platform.io/v1/selfsubjectreviews';
const TOKEN_REVIEWS = '/apis/authentication.platform.io/v1/tokenreviews';
const ISSUER = 'https://issuer.example.test';
const AUDIENCE = 'api.example.test';

function b64url(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

describe('service-account tokens (TokenRequest, authentication, lookup, discovery, TokenReview)', () => {
  let server: TestServer;
  let keyPem: string;
  let publicPem: string;
  const dir = mkdtempSync(join(tmpdir(), 'sa-keys-'));

  /** A JWT signed with the server's own signing key, with any claims (forgery tests). */
  async function signed(claims: Record<string, unknown>, header: Record<string, unknown> = { alg: 'ES256' }): Promise<string> {
    const jose = await loadJose();
    const key = await jose.importPKCS8(keyPem, 'ES256');
    return new jose.SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(key);
  }

  function claimsFor(name: string, uid: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: ISSUER,
      aud: [AUDIENCE],
      sub: `system:serviceaccount:default:${name}`,
      iat: now,
      nbf: now,
      exp: now + 600,
      'platform.io': { namespace: 'default', serviceaccount: { name, uid } },
      ...overrides,
    };
  }

  async function createAccount(name: string): Promise<{ uid: string }> {
    const res = await server.admin.post('/api/v1/namespaces/default/serviceaccounts', { metadata: { name } });
    expect(res.status).toBe(201);
    return { uid: res.body.metadata.uid };
  }

  async function requestToken(name: string, spec: Record<string, unknown> = {}) {
    return server.admin.post(`/api/v1/namespaces/default/serviceaccounts/${name}/token`, { apiVersion: 'authentication.platform.io/v1', kind: 'TokenRequest', spec });
  }

  async function whoami(token: string) {
    return server.anonymous.post(WHOAMI, { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' }, { as: { token } });
  }

  beforeAll(async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    writeFileSync(join(dir, 'sa.key'), keyPem);
    server = await startTestServer({
      options: {
        serviceAccounts: {
          issuers: [ISSUER, 'https://old-issuer.example.test'],
          signingKeyFile: join(dir, 'sa.key'),
          keyFiles: [],
          apiAudiences: [AUDIENCE],
          maxTokenExpirationSeconds: 7200,
          lookup: true,
        },
      },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('issues a token for a service account that authenticates as the account', async () => {
    const { uid } = await createAccount('robot');
    const before = Date.now();
    const res = await requestToken('robot');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'TokenRequest', apiVersion: 'authentication.platform.io/v1', spec: { audiences: [AUDIENCE], expirationSeconds: 3600 } });
    const expires = Date.parse(res.body.status.expirationTimestamp);
    expect(expires).toBeGreaterThanOrEqual(before + 3599_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 3601_000);

    const token: string = res.body.status.token;
    const [header, payload] = token.split('.').slice(0, 2).map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    expect(header).toMatchObject({ alg: 'ES256' });
    expect(typeof header.kid).toBe('string');
    expect(payload).toMatchObject({
      iss: ISSUER,
      aud: [AUDIENCE],
      sub: 'system:serviceaccount:default:robot',
      'platform.io': { namespace: 'default', serviceaccount: { name: 'robot', uid } },
    });
    expect(payload.exp - payload.iat).toBe(3600);
    expect(payload.nbf).toBe(payload.iat);

    const me = await whoami(token);
    expect(me.status).toBe(201);
    expect(me.body.status.userInfo).toEqual({
      username: 'system:serviceaccount:default:robot',
      uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
      extra: { 'authentication.platform.io/credential-id': [`JTI=${payload.jti}`] },
    });
  });

  it('checks expirationSeconds (minimum 10 minutes, capped by the maximum) and needs the account', async () => {
    const short = await requestToken('robot', { expirationSeconds: 60 });
    expect(short.status).toBe(422);
    expect(short.body.message).toBe('TokenRequest.authentication.platform.io "robot" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes');
    const long = await requestToken('robot', { expirationSeconds: 100000 });
    expect(long.status).toBe(201);
    expect(long.body.spec.expirationSeconds).toBe(7200);
    const missing = await requestToken('nobody');
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('serviceaccounts "nobody" not found');
    const get = await server.admin.get('/api/v1/namespaces/default/serviceaccounts/robot/token');
    expect(get.status).toBe(405);
    const discovery = (await server.admin.get('/api/v1')).body.resources;
    expect(discovery).toContainEqual({
      name: 'serviceaccounts/token',
      singularName: '',
      namespaced: true,
      group: 'authentication.platform.io',
      version: 'v1',
      kind: 'TokenRequest',
      verbs: ['create'],
    });
  });

  it('requires create on serviceaccounts/token', async () => {
    const res = await server.anonymous.post('/api/v1/namespaces/default/serviceaccounts/robot/token', { spec: {} }, { as: server.certFor('eve') });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(
      'serviceaccounts "robot" is forbidden: User "eve" cannot create resource "serviceaccounts/token" in API group "" in the namespace "default"',
    );
  });

  it('rejects the tokens of a deleted account, also when it is recreated with the same name', async () => {
    await createAccount('short-lived');
    const token = (await requestToken('short-lived')).body.status.token;
    expect((await whoami(token)).status).toBe(201);
    expect((await server.admin.delete('/api/v1/namespaces/default/serviceaccounts/short-lived')).status).toBe(200);
    // A success is reused only while the store is unchanged: the delete ends it as soon as it is read.
    await eventually(async () => {
      const res = await whoami(token);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401, message: 'Unauthorized' });
    }, 2000, 20);
    await createAccount('short-lived');
    expect((await whoami(token)).status).toBe(401);
  });

  it('binds tokens to a Secret or a Pod: valid while the object exists, with the pod in extra', async () => {
    await createAccount('bound');
    const secret = await server.admin.post('/api/v1/namespaces/default/secrets', { metadata: { name: 'binding' } });
    const secretToken = await requestToken('bound', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'binding' } });
    expect(secretToken.status).toBe(201);
    const payload = JSON.parse(Buffer.from(secretToken.body.status.token.split('.')[1], 'base64url').toString());
    expect(payload['platform.io'].secret).toEqual({ name: 'binding', uid: secret.body.metadata.uid });
    expect((await whoami(secretToken.body.status.token)).status).toBe(201);

    const pod = await server.admin.post('/api/v1/namespaces/default/pods', {
      metadata: { name: 'worker' },
      spec: { serviceAccountName: 'bound', containers: [{ name: 'c', image: 'busybox' }] },
    });
    expect(pod.status).toBe(201);
    const podToken = (await requestToken('bound', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'worker', uid: pod.body.metadata.uid } })).body.status.token;
    const me = await whoami(podToken);
    expect(me.body.status.userInfo.extra).toMatchObject({
      'authentication.platform.io/pod-name': ['worker'],
      'authentication.platform.io/pod-uid': [pod.body.metadata.uid],
    });

    const wrongUid = await requestToken('bound', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'worker', uid: 'not-the-uid' } });
    expect(wrongUid.status).toBe(409);
    const wrongKind = await requestToken('bound', { boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'x' } });
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body.message).toBe('cannot bind token to object of type /v1, Kind=ConfigMap');
    const absent = await requestToken('bound', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'absent' } });
    expect(absent.status).toBe(404);

    await server.admin.delete('/api/v1/namespaces/default/secrets/binding');
    await eventually(async () => expect((await whoami(secretToken.body.status.token)).status).toBe(401), 2000, 20);
  });

  it('answers 401 with nothing an attacker can use for forged, foreign, expired and garbage tokens', async () => {
    const { uid } = await createAccount('target');
    expect((await whoami(await signed(claimsFor('target', uid)))).status).toBe(201);
    // A second accepted issuer verifies too.
    expect((await whoami(await signed(claimsFor('target', uid, { iss: 'https://old-issuer.example.test' })))).status).toBe(201);

    const now = Math.floor(Date.now() / 1000);
    const none = `${b64url({ alg: 'none' })}.${b64url(claimsFor('target', uid))}.`;
    const hmacInput = `${b64url({ alg: 'HS256' })}.${b64url(claimsFor('target', uid))}`;
    const hmac = `${hmacInput}.${createHmac('sha256', publicPem).update(hmacInput).digest('base64url')}`;
    const valid = await signed(claimsFor('target', uid));
    const tampered = valid.replace(/\.([^.]+)\./, (_m, p: string) => `.${b64url({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), sub: 'system:serviceaccount:default:admin' })}.`);
    const bad: Record<string, string> = {
      'alg none': none,
      'HMAC with the public key': hmac,
      tampered,
      'wrong audience': await signed(claimsFor('target', uid, { aud: ['someone-else'] })),
      expired: await signed(claimsFor('target', uid, { exp: now - 3600, iat: now - 7200, nbf: now - 7200 })),
      'not yet valid': await signed(claimsFor('target', uid, { nbf: now + 3600 })),
      'another uid': await signed(claimsFor('target', randomUUID())),
      'missing account claim': await signed(claimsFor('target', uid, { 'platform.io': { namespace: 'default' } })),
      truncated: valid.slice(0, valid.length - 10),
      'signed by another key': await (async () => {
        const jose = await loadJose();
        const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
        return new jose.SignJWT(claimsFor('target', uid)).setProtectedHeader({ alg: 'ES256' }).sign(await jose.importPKCS8(other, 'ES256'));
      })(),
      garbage: 'a.b.c',
      'not a JWT': 'x'.repeat(40),
      oversized: 'y'.repeat(200_000),
    };
    for (const [what, token] of Object.entries(bad)) {
      const res = await whoami(token);
      expect({ what, status: res.status, body: res.body }).toEqual({
        what,
        status: 401,
        body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 },
      });
    }
  });

  it('serves issuer discovery that an outside verifier (jose) uses to check a token', async () => {
    await createAccount('discoverer');
    const token = (await requestToken('discoverer', { audiences: ['vault'] })).body.status.token;
    const other = (await requestToken('discoverer')).body.status.token;
    // Readable by service accounts (system:service-account-issuer-discovery), not by anonymous callers.
    expect((await server.anonymous.get('/.well-known/openid-configuration')).status).toBe(403);
    const config = await server.anonymous.get('/.well-known/openid-configuration', { as: { token: other } });
    expect(config.status).toBe(200);
    expect(config.headers['content-type']).toMatch(/^application\/json/);
    expect(config.body).toEqual({
      issuer: ISSUER,
      jwks_uri: `${ISSUER}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
    });
    const jwks = await server.anonymous.get('/openid/v1/jwks', { as: { token: other } });
    expect(jwks.status).toBe(200);
    expect(jwks.headers['content-type']).toMatch(/^application\/jwk-set\+json/);
    expect(jwks.body.keys).toHaveLength(1);
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', use: 'sig', alg: 'ES256' });
    expect(jwks.body.keys[0].d).toBeUndefined();

    const jose = await loadJose();
    const keySet = jose.createLocalJWKSet(JSON.parse(jwks.text));
    const verified = await jose.jwtVerify(token, keySet, { issuer: config.body.issuer, audience: 'vault' });
    expect(verified.payload.sub).toBe('system:serviceaccount:default:discoverer');
    expect(verified.protectedHeader.kid).toBe(jwks.body.keys[0].kid);
    // The token for `vault` is not one for the API.
    expect((await whoami(token)).status).toBe(401);
  });

  it('answers TokenReview through the same methods, for the audiences asked, 201 even for a bad token', async () => {
    const { uid } = await createAccount('reviewed');
    const token = (await requestToken('reviewed', { audiences: ['vault', 'other'] })).body.status.token;
    const review = (spec: Record<string, unknown>, as = server.admin) =>
      as.post(TOKEN_REVIEWS, { apiVersion: 'authentication.platform.io/v1', kind: 'TokenReview', spec });
    const ok = await review({ token, audiences: ['vault'] });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({
      kind: 'TokenReview',
      apiVersion: 'authentication.platform.io/v1',
      status: {
        authenticated: true,
        audiences: ['vault'],
        user: { username: 'system:serviceaccount:default:reviewed', uid, groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'] },
      },
    });
    expect(JSON.stringify(ok.body)).not.toContain(token);
    const apiAudience = await review({ token });
    expect(apiAudience.body.status).toMatchObject({ authenticated: false });
    const bad = await review({ token: 'garbage' });
    expect(bad.status).toBe(201);
    expect(bad.body.status).toMatchObject({ authenticated: false });
    expect(JSON.stringify(bad.body)).not.toContain('garbage');
    const empty = await review({});
    expect(empty.status).toBe(400);
    expect(empty.body.message).toBe('token is required for TokenReview in authentication');

    const delegate = server.anonymous.withIdentity(server.certFor('delegate'));
    expect((await review({ token }, delegate)).status).toBe(403);
    await server.admin.post(`${RBAC}/clusterrolebindings`, {
      metadata: { name: 'delegate-auth' },
      roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'system:auth-delegator' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: 'delegate' }],
    });
    await eventually(async () => expect((await review({ token, audiences: ['other'] }, delegate)).status).toBe(201));
  });

  it('works with kubectl: create token, and a kubeconfig holding a service-account token', async () => {
    await createAccount('kubectl-user');
    const kubectl = kubectlFor(server);
    const { stdout: token } = await kubectl('create', 'token', 'kubectl-user', '-n', 'default');
    const kubeconfig = YAML.parse(require('node:fs').readFileSync(server.kubeconfigPath, 'utf8'));
    kubeconfig.users = [{ name: 'sa', user: { token: token.trim() } }];
    kubeconfig.contexts = [{ name: 'sa', context: { cluster: kubeconfig.clusters[0].name, user: 'sa', namespace: 'default' } }];
    kubeconfig['current-context'] = 'sa';
    const path = join(dir, 'sa.kubeconfig');
    writeFileSync(path, YAML.stringify(kubeconfig), { mode: 0o600 });
    const asAccount = kubectlWith(path, dir);
    const { stdout } = await asAccount('auth', 'whoami', '-o', 'json');
    expect(JSON.parse(stdout).status.userInfo.username).toBe('system:serviceaccount:default:kubectl-user');
    await expect(asAccount('get', 'secrets')).rejects.toMatchObject({ stderr: expect.stringContaining('User "system:serviceaccount:default:kubectl-user" cannot list resource "secrets"') });
    await server.admin.post(`${RBAC}/namespaces/default/rolebindings`, {
      metadata: { name: 'kubectl-user-view' },
      roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'ServiceAccount', name: 'kubectl-user', namespace: 'default' }],
    });
    await eventually(async () => expect((await asAccount('get', 'serviceaccounts', '-o', 'name')).stdout).toContain('serviceaccount/kubectl-user'));
  });
});
