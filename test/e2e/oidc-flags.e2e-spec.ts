import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultOptions } from '../../src/config/options';
import { kubectlAs } from '../support/kubectl';
import { TestOidcProvider } from '../support/oidc-provider';
import { startTestServer, TestServer } from '../support/test-server';

const AUTHN = '/apis/authentication.platform.io/v1';
const REVIEW = { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' };

/** Who the server says the bearer of `token` is (SelfSubjectReview), or the status it answered. */
async function whoami(server: TestServer, token: string): Promise<{ status: number; user?: Record<string, unknown> }> {
  const res = await server.anonymous.post(`${AUTHN}/selfsubjectreviews`, REVIEW, { as: { token } });
  return { status: res.status, user: res.status === 201 ? res.body.status.userInfo : undefined };
}

/** OpenID Connect by the --oidc-* flags: one issuer with a CA file, groups, required claims and two algorithms. */
describe('OpenID Connect by flags', () => {
  let provider: TestOidcProvider;
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    provider = await TestOidcProvider.start();
    dir = mkdtempSync(join(tmpdir(), 'oidc-flags-e2e-'));
    const caFile = join(dir, 'oidc-ca.pem');
    writeFileSync(caFile, provider.caPem);
    server = await startTestServer({
      options: {
        oidc: {
          issuerUrl: provider.issuer,
          clientId: 'platform',
          usernameClaim: 'sub',
          groupsClaim: 'groups',
          groupsPrefix: 'oidc:',
          requiredClaims: [['tenant', 'blue']],
          caFile,
          signingAlgs: ['RS256', 'ES256'],
        },
        serviceAccounts: { ...defaultOptions().serviceAccounts, apiAudiences: ['platform-api'] },
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await provider?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const valid = (claims: Record<string, unknown> = {}) => provider.sign({ tenant: 'blue', groups: ['dev', 'ops'], ...claims });

  it('maps sub (prefixed with the issuer) and prefixed groups; SelfSubjectReview shows the user', async () => {
    const res = await whoami(server, valid());
    expect(res.status).toBe(201);
    expect(res.user).toEqual({ username: `${provider.issuer}#alice-id`, groups: ['oidc:dev', 'oidc:ops', 'system:authenticated'] });
  });

  it('takes a group claim that is a single string', async () => {
    expect((await whoami(server, valid({ groups: 'admins' }))).user).toMatchObject({ groups: ['oidc:admins', 'system:authenticated'] });
    expect((await whoami(server, valid({ groups: undefined }))).user).toMatchObject({ groups: ['system:authenticated'] });
  });

  it('rejects a group claim that is neither a string nor a list of strings', async () => {
    expect((await whoami(server, valid({ groups: { a: 1 } }))).status).toBe(401);
  });

  it('requires the required claim with its value', async () => {
    expect((await whoami(server, valid({ tenant: undefined }))).status).toBe(401);
    expect((await whoami(server, valid({ tenant: 'red' }))).status).toBe(401);
  });

  it('answers a rejected token with a 401 Status', async () => {
    const res = await server.anonymous.get('/api', { as: { token: valid({ aud: 'someone-else' }) } });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401, message: 'Unauthorized' });
  });

  it('checks the audience (a list must contain the client id)', async () => {
    expect((await whoami(server, valid({ aud: 'someone-else' }))).status).toBe(401);
    expect((await whoami(server, valid({ aud: ['someone-else', 'platform'] }))).status).toBe(201);
  });

  it('checks exp, nbf and iat, with five minutes of clock skew for nbf and iat', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await whoami(server, valid({ exp: now - 10 }))).status).toBe(401);
    expect((await whoami(server, valid({ exp: undefined }))).status).toBe(401);
    expect((await whoami(server, valid({ nbf: now + 3600 }))).status).toBe(401);
    expect((await whoami(server, valid({ nbf: now + 60 }))).status).toBe(201);
    expect((await whoami(server, valid({ iat: now + 3600 }))).status).toBe(401);
    expect((await whoami(server, valid({ iat: now + 60 }))).status).toBe(201);
  });

  it('rejects a token of another issuer, and one whose signature does not match', async () => {
    expect((await whoami(server, valid({ iss: 'https://elsewhere.example' }))).status).toBe(401);
    const [header, payload, signature] = valid().split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: 'root' })).toString('base64url');
    expect((await whoami(server, `${header}.${forged}.${signature}`)).status).toBe(401);
    expect((await whoami(server, 'not-a-jwt')).status).toBe(401);
  });

  it('never accepts HS256 signed with the public key (algorithm confusion) or alg none', async () => {
    expect((await whoami(server, provider.signHmacWithPublicKey({ tenant: 'blue' }))).status).toBe(401);
    expect((await whoami(server, provider.unsigned({ tenant: 'blue' }))).status).toBe(401);
  });

  it('fetches the key set again for new keys (rotation), accepts only the algorithms of --oidc-signing-algs', async () => {
    const old = provider.current;
    const es = provider.rotate('ES256');
    const ps = provider.rotate('PS256');
    const rs = provider.rotate('RS256');
    const before = provider.hitsOf('/keys');
    expect((await whoami(server, provider.sign({ tenant: 'blue' }, { key: rs }))).status).toBe(201);
    expect((await whoami(server, provider.sign({ tenant: 'blue' }, { key: es }))).status).toBe(201);
    expect((await whoami(server, provider.sign({ tenant: 'blue' }, { key: old }))).status).toBe(201);
    expect((await whoami(server, provider.sign({ tenant: 'blue' }, { key: ps }))).status).toBe(401);
    expect(provider.hitsOf('/keys') - before).toBe(1);
  });

  it('does not fetch the key set for every token naming an unknown key', async () => {
    const before = provider.hitsOf('/keys');
    const unpublished = TestOidcProvider.unpublishedKey();
    for (let i = 0; i < 5; i++) expect((await whoami(server, provider.sign({ tenant: 'blue', jti: String(i) }, { key: unpublished }))).status).toBe(401);
    expect(provider.hitsOf('/keys') - before).toBeLessThanOrEqual(1);
    expect((await whoami(server, valid())).status).toBe(201);
  });

  it('answers a TokenReview for the API audiences only (an ID token is not meant for others)', async () => {
    const review = async (audiences?: string[]) =>
      (
        await server.admin.post(`${AUTHN}/tokenreviews`, {
          apiVersion: 'authentication.platform.io/v1',
          kind: 'TokenReview',
          spec: { token: valid({ groups: [] }), ...(audiences ? { audiences } : {}) },
        })
      ).body.status;
    expect(await review()).toEqual({ authenticated: true, user: { username: `${provider.issuer}#alice-id`, groups: ['system:authenticated'] }, audiences: ['platform-api'] });
    expect(await review(['other', 'platform-api'])).toMatchObject({ authenticated: true, audiences: ['platform-api'] });
    expect(await review(['other'])).toMatchObject({ authenticated: false });
    expect((await review(['platform-api'])).error).toBeUndefined();
    const rejected = (await server.admin.post(`${AUTHN}/tokenreviews`, { apiVersion: 'authentication.platform.io/v1', kind: 'TokenReview', spec: { token: valid({ aud: 'x' }) } })).body.status;
    expect(rejected).toMatchObject({ authenticated: false, error: expect.stringContaining('oidc: verify token: oidc: expected audience in ["platform"] got ["x"]') });
  });

  it('kubectl auth whoami with --token shows the mapped user', async () => {
    const kubectl = kubectlAs(server, 'oidc-user', {});
    const { stdout } = await kubectl(`--token=${valid({ groups: ['dev'] })}`, 'auth', 'whoami', '-o', 'json');
    const review = JSON.parse(stdout);
    expect(review.status.userInfo).toEqual({ username: `${provider.issuer}#alice-id`, groups: ['oidc:dev', 'system:authenticated'] });
  });
});

describe('OpenID Connect by flags: the email claim and prefixes', () => {
  let provider: TestOidcProvider;
  let emailServer: TestServer;
  let dir: string;

  beforeAll(async () => {
    provider = await TestOidcProvider.start('/tenant');
    dir = mkdtempSync(join(tmpdir(), 'oidc-email-e2e-'));
    const caFile = join(dir, 'oidc-ca.pem');
    writeFileSync(caFile, provider.caPem);
    emailServer = await startTestServer({
      options: { oidc: { issuerUrl: provider.issuer, clientId: 'platform', usernameClaim: 'email', requiredClaims: [], caFile, signingAlgs: ['RS256'] } },
    });
  });
  afterAll(async () => {
    await emailServer?.close();
    await provider?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('uses the email claim unprefixed and requires email_verified to be true when present', async () => {
    expect((await whoami(emailServer, provider.sign({ email: 'alice@example.com' }))).user).toEqual({ username: 'alice@example.com', groups: ['system:authenticated'] });
    expect((await whoami(emailServer, provider.sign({ email: 'alice@example.com', email_verified: true }))).status).toBe(201);
    expect((await whoami(emailServer, provider.sign({ email: 'alice@example.com', email_verified: false }))).status).toBe(401);
    expect((await whoami(emailServer, provider.sign({ email: 'alice@example.com', email_verified: 'true' }))).status).toBe(401);
    expect((await whoami(emailServer, provider.sign({ email: undefined }))).status).toBe(401);
  });

  it('stops the start for an issuer URL that is not https, naming the field', async () => {
    await expect(
      startTestServer({ options: { oidc: { issuerUrl: 'http://127.0.0.1:1/', clientId: 'platform', usernameClaim: 'sub', requiredClaims: [], signingAlgs: ['RS256'] } } }),
    ).rejects.toThrow('--oidc-issuer-url: jwt[0].issuer.url: Invalid value: "http://127.0.0.1:1/": URL scheme must be https');
  });
});
