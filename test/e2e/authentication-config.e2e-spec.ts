import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as YAML from 'yaml';
import { FeatureGates } from '../../src/config/feature-gates';
import { APISERVER_ID_HASH } from '../../src/metrics/apiserver-identity';
import { eventually } from '../support/eventually';
import { TestOidcProvider } from '../support/oidc-provider';
import { startTestServer, TestServer } from '../support/test-server';
import { metricSample } from '../support/webhook-server';

const AUTHN = '/apis/authentication.platform.io/v1';
const REVIEW = { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' };

/**
 * `--authentication-config`: several JWT issuers (CEL mappings and rules, a discovery URL,
 * an issuer that is down, one that names another issuer), anonymous access limited to
 * paths, and reloads of the file while the server runs.
 */
describe('the authentication configuration file', () => {
  let tenants: TestOidcProvider;
  let partners: TestOidcProvider;
  let impostor: TestOidcProvider;
  let downIssuer: string;
  let server: TestServer;
  let dir: string;
  let configPath: string;

  const tenantsAuthenticator = (usernamePrefix = 'a:') => ({
    issuer: { url: tenants.issuer, certificateAuthority: tenants.caPem, audiences: ['platform'] },
    claimValidationRules: [
      { claim: 'hd', requiredValue: 'example.com' },
      { expression: "claims.?tier.orValue('') != 'banned'", message: 'banned tier' },
      // quadratic in a list the caller controls: the cost budget stops it
      { expression: "!has(claims.items) || claims.items.all(x, claims.items.all(y, claims.items.all(z, x + y + z != 'never')))" },
    ],
    claimMappings: {
      username: { expression: `'${usernamePrefix}' + claims.sub` },
      groups: { expression: "has(claims.org) ? claims.org.teams.map(t, 'team:' + t) : []" },
      uid: { claim: 'uid' },
      extra: [{ key: 'example.com/tenant', valueExpression: "has(claims.org) ? claims.org.name : ''" }],
    },
    userValidationRules: [{ expression: "!user.username.startsWith('a:system')", message: 'no system users' }],
  });
  const config = (jwtOverride?: unknown[], anonymousPaths = ['/livez', '/readyz']) => ({
    apiVersion: 'apiserver.config.platform.io/v1beta1',
    kind: 'AuthenticationConfiguration',
    jwt: jwtOverride ?? [
      tenantsAuthenticator(),
      {
        issuer: { url: partners.issuer, discoveryURL: partners.discoveryUrl, certificateAuthority: partners.caPem, audiences: ['one', 'two'], audienceMatchPolicy: 'MatchAny' },
        claimMappings: {
          username: { expression: "claims.email_verified == true ? claims.email : ''" },
          groups: { claim: 'roles', prefix: 'partner:' },
        },
      },
      { issuer: { url: downIssuer, audiences: ['platform'] }, claimMappings: { username: { claim: 'sub', prefix: '' } } },
      { issuer: { url: impostor.issuer, certificateAuthority: impostor.caPem, audiences: ['platform'] }, claimMappings: { username: { claim: 'sub', prefix: '' } } },
    ],
    anonymous: { enabled: true, conditions: anonymousPaths.map((path) => ({ path })) },
  });
  const writeConfig = (value: unknown) => writeFileSync(configPath, typeof value === 'string' ? value : YAML.stringify(value));

  const whoami = async (token: string) => {
    const res = await server.anonymous.post(`${AUTHN}/selfsubjectreviews`, REVIEW, { as: { token } });
    return { status: res.status, user: res.status === 201 ? res.body.status.userInfo : undefined };
  };
  const tenantToken = (claims: Record<string, unknown> = {}) => tenants.sign({ hd: 'example.com', uid: 'u-1', org: { name: 'acme', teams: ['dev', 'ops'] }, ...claims });
  const metrics = async () => (await server.admin.get('/metrics', { headers: { Accept: 'text/plain' } })).text;
  const reloads = async (status: string) =>
    metricSample(await metrics(), `apiserver_authentication_config_controller_automatic_reloads_total{status="${status}",apiserver_id_hash="${APISERVER_ID_HASH}"}`) ?? 0;

  beforeAll(async () => {
    [tenants, partners, impostor] = await Promise.all([TestOidcProvider.start('/tenants'), TestOidcProvider.start('/partners'), TestOidcProvider.start()]);
    impostor.servedIssuer = 'https://someone-else.example';
    const down = await TestOidcProvider.start();
    downIssuer = down.issuer;
    await down.close();
    dir = mkdtempSync(join(tmpdir(), 'authn-config-e2e-'));
    configPath = join(dir, 'authentication.yaml');
    writeConfig(config());
    server = await startTestServer({
      options: {
        authenticationConfigFile: configPath,
        authenticationConfigReloadIntervalMs: 300,
        featureGates: FeatureGates.from({ AnonymousAuthConfigurableEndpoints: true }),
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all([tenants?.close(), partners?.close(), impostor?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('maps claims with CEL: username, groups from a nested claim, uid by claim, extra', async () => {
    expect(await whoami(tenantToken())).toEqual({
      status: 201,
      user: { username: 'a:alice-id', uid: 'u-1', groups: ['team:dev', 'team:ops', 'system:authenticated'], extra: { 'example.com/tenant': ['acme'] } },
    });
    // an empty extra value is left out, no groups is none
    expect((await whoami(tenantToken({ org: undefined }))).user).toEqual({ username: 'a:alice-id', uid: 'u-1', groups: ['system:authenticated'] });
  });

  it('measures JWT authentications per issuer (hashed)', async () => {
    await whoami(tenantToken({ jti: 'metric' }));
    const issuerHash = `sha256:${createHash('sha256').update(tenants.issuer).digest('hex')}`;
    const count = metricSample(await metrics(), `apiserver_authentication_jwt_authenticator_latency_seconds_count{result="success",jwt_issuer_hash="${issuerHash}"}`);
    expect(count).toBeGreaterThan(0);
  });

  it('answers 401 when a claim or user validation rule fails', async () => {
    expect((await whoami(tenantToken({ hd: undefined }))).status).toBe(401);
    expect((await whoami(tenantToken({ hd: 'evil.example' }))).status).toBe(401);
    expect((await whoami(tenantToken({ tier: 'banned' }))).status).toBe(401);
    expect((await whoami(tenantToken({ tier: 'gold' }))).status).toBe(201);
    expect((await whoami(tenantToken({ sub: 'system-admin' }))).status).toBe(401);
    // a uid claim that is not a string
    expect((await whoami(tenantToken({ uid: 7 }))).status).toBe(401);
  });

  it('stops an expression that exceeds the cost budget: 401, quickly', async () => {
    const items = Array.from({ length: 300 }, (_, i) => `item-${i}`);
    const started = Date.now();
    expect((await whoami(tenantToken({ items }))).status).toBe(401);
    expect(Date.now() - started).toBeLessThan(3000);
    expect((await whoami(tenantToken({ items: ['a', 'b'] }))).status).toBe(201);
  });

  it('uses the discovery URL, matches any of several audiences, and requires a verified email', async () => {
    const partner = (claims: Record<string, unknown>) => partners.sign({ aud: 'two', email: 'bob@partner.example', email_verified: true, roles: ['viewer'], ...claims });
    expect(await whoami(partner({}))).toEqual({ status: 201, user: { username: 'bob@partner.example', groups: ['partner:viewer', 'system:authenticated'] } });
    expect((await whoami(partner({ aud: ['three', 'one'] }))).status).toBe(201);
    expect((await whoami(partner({ aud: 'platform' }))).status).toBe(401);
    expect((await whoami(partner({ email_verified: false }))).status).toBe(401);
    expect(partners.hitsOf('/discovery/openid-configuration')).toBeGreaterThan(0);
    expect(partners.hitsOf('/partners/.well-known/openid-configuration')).toBe(0);
  });

  it('rejects the tokens of an issuer whose discovery names another issuer, and of one that is down; the others work and the server is ready', async () => {
    expect((await whoami(impostor.sign({}))).status).toBe(401);
    expect((await whoami(impostor.sign({ iss: downIssuer }))).status).toBe(401);
    expect((await server.admin.get('/readyz')).status).toBe(200);
    expect((await whoami(tenantToken())).status).toBe(201);
  });

  it('allows anonymous requests only to the paths of anonymous.conditions', async () => {
    expect((await server.anonymous.get('/livez')).status).toBe(200);
    expect((await server.anonymous.get('/readyz')).status).toBe(200);
    const res = await server.anonymous.get('/version');
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });

  it('reloads a changed file and counts it; an invalid one keeps the last good configuration', async () => {
    const successes = await reloads('success');
    const failures = await reloads('failure');
    writeConfig(config([tenantsAuthenticator('t:')]));
    await eventually(async () => expect((await whoami(tenantToken())).user?.username).toBe('t:alice-id'));
    await eventually(async () => expect(await reloads('success')).toBe(successes + 1));
    const page = await metrics();
    const stamp = metricSample(page, `apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds{status="success",apiserver_id_hash="${APISERVER_ID_HASH}"}`);
    expect(stamp).toBeGreaterThan(Date.now() / 1000 - 60);
    // the partners' issuer is gone with the reload
    expect((await whoami(partners.sign({ aud: 'two', email: 'bob@partner.example', email_verified: true }))).status).toBe(401);

    // an expression that does not compile: logged, counted, the configuration in force stays
    const broken = config([tenantsAuthenticator('t:')]);
    (broken.jwt[0] as { claimMappings: { username: { expression: string } } }).claimMappings.username.expression = "'x' +";
    writeConfig(broken);
    await eventually(async () => expect(await reloads('failure')).toBe(failures + 1));
    expect((await whoami(tenantToken())).user?.username).toBe('t:alice-id');

    // anonymous settings cannot change on reload
    writeConfig(config([tenantsAuthenticator('u:')], ['/livez']));
    await eventually(async () => expect(await reloads('failure')).toBe(failures + 2));
    expect((await whoami(tenantToken())).user?.username).toBe('t:alice-id');
    expect((await server.anonymous.get('/readyz')).status).toBe(200);
  });

  it('stops a start with every validation error and its field path', async () => {
    const badPath = join(dir, 'bad.yaml');
    writeFileSync(
      badPath,
      YAML.stringify({
        apiVersion: 'apiserver.config.platform.io/v1',
        kind: 'AuthenticationConfiguration',
        jwt: [
          {
            issuer: { url: 'http://insecure.example', audiences: ['a', 'b'] },
            claimValidationRules: [{ expression: 'claims.admin' }],
            claimMappings: { username: { claim: 'sub' }, extra: [{ key: 'platform.io/x', valueExpression: 'claims.x' }] },
            userValidationRules: [{ expression: 'user.nope == 1' }],
          },
        ],
      }),
    );
    const failure = startTestServer({ options: { authenticationConfigFile: badPath } });
    await expect(failure).rejects.toThrow(/^--authentication-config: \[jwt\[0\]\.issuer\.url: Invalid value: "http:\/\/insecure\.example": URL scheme must be https, /);
    const message = await failure.catch((err: Error) => err.message);
    expect(message).toContain('jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences');
    expect(message).toContain('jwt[0].claimValidationRules[0].expression: Invalid value: "claims.admin": must evaluate to bool');
    expect(message).toContain('jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing');
    expect(message).toContain('jwt[0].claimMappings.extra[0].key: Invalid value: "platform.io/x": platform.io, kubernetes.io and their subdomains are reserved for Kubernetes use');
    expect(message).toMatch(/jwt\[0\]\.userValidationRules\[0\]\.expression: Invalid value: "user\.nope == 1": compilation failed: /);
  });

  it('stops a start that sets --anonymous-auth next to an anonymous section', async () => {
    await expect(
      startTestServer({
        options: { authenticationConfigFile: configPath, anonymousAuth: true, featureGates: FeatureGates.from({ AnonymousAuthConfigurableEndpoints: true }) },
      }),
    ).rejects.toThrow('--anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file');
  });
});
