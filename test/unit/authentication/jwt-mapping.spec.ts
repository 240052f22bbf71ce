import { authenticationEnvironments } from '../../../src/authentication/jwt/expressions';
import { IssuerKeys } from '../../../src/authentication/jwt/issuer-keys';
import { JwtAuthenticator, TokenRejected } from '../../../src/authentication/jwt/jwt-authenticator';
import { JWTAuthenticator } from '../../../src/authentication/jwt/types';
import { validateJWTAuthenticator } from '../../../src/authentication/jwt/validation';
import { FieldPath } from '../../../src/apimachinery/field-errors';
import { Jose, loadJose } from '../../../src/authentication/serviceaccount/jose';

const ISSUER = 'https://issuer.example';

/** Claims to users, through a JwtAuthenticator whose issuer keys are a local key set. */
describe('mapping verified claims to a user', () => {
  let jose: Jose;
  let privateKey: Awaited<ReturnType<Jose['generateKeyPair']>>['privateKey'];
  let keys: IssuerKeys;

  beforeAll(async () => {
    jose = await loadJose();
    const pair = await jose.generateKeyPair('ES256');
    privateKey = pair.privateKey;
    const jwks = { keys: [{ ...(await jose.exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' }] };
    const resolver = jose.createLocalJWKSet(jwks);
    keys = { current: () => Promise.resolve(resolver), refreshForUnknownKey: () => Promise.resolve(), loadProblem: '' } as unknown as IssuerKeys;
  });

  const token = (claims: Record<string, unknown>) =>
    new jose.SignJWT({ iss: ISSUER, aud: 'platform', sub: 'alice', ...claims }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuedAt().setExpirationTime('1h').sign(privateKey);

  async function authenticator(overrides: Partial<JWTAuthenticator> & { mappings?: Partial<JWTAuthenticator['claimMappings']> }): Promise<JwtAuthenticator> {
    const { mappings, ...rest } = overrides;
    const config: JWTAuthenticator = {
      issuer: { url: ISSUER, discoveryURL: '', certificateAuthority: '', audiences: ['platform'], audienceMatchPolicy: '' },
      claimValidationRules: [],
      userValidationRules: [],
      ...rest,
      claimMappings: { username: { claim: 'sub', prefix: '', expression: '' }, groups: { claim: '', expression: '' }, uid: { claim: '', expression: '' }, extra: [], ...mappings },
    };
    const { errors, compiled } = validateJWTAuthenticator({ envs: await authenticationEnvironments(), disallowedIssuers: [], anonymousConfigurable: false }, config, FieldPath.root('jwt'));
    expect(errors).toEqual([]);
    return new JwtAuthenticator(config, compiled, ['ES256'], keys);
  }

  const rejection = async (a: JwtAuthenticator, t: string) => {
    const err = await a.authenticate(t).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TokenRejected);
    return (err as Error).message;
  };

  it('prefixes claims and takes groups as a string or a list', async () => {
    const a = await authenticator({ mappings: { username: { claim: 'sub', prefix: 'oidc:', expression: '' }, groups: { claim: 'groups', prefix: 'g:', expression: '' } } });
    expect((await a.authenticate(await token({ groups: ['x', 'y'] }))).user).toEqual({ username: 'oidc:alice', groups: ['g:x', 'g:y'] });
    expect((await a.authenticate(await token({ groups: 'x' }))).user).toEqual({ username: 'oidc:alice', groups: ['g:x'] });
    expect(await rejection(a, await token({ groups: [1] }))).toMatch(/^oidc: parse groups claim "groups": /);
    expect(await rejection(a, await token({ sub: 5 }))).toMatch(/^oidc: parse username claims "sub": /);
  });

  it('maps by expression: uid, extra (empty values left out), groups from a list or a string', async () => {
    const a = await authenticator({
      mappings: {
        username: { claim: '', expression: "'u:' + claims.sub" },
        groups: { claim: '', expression: 'claims.?roles.orValue([])' },
        uid: { claim: '', expression: 'claims.sub + "-uid"' },
        extra: [
          { key: 'example.com/org', valueExpression: 'claims.?org.name.orValue("")' },
          { key: 'example.com/all', valueExpression: '["a", "b"]' },
        ],
      },
    });
    expect((await a.authenticate(await token({ roles: 'admin', org: { name: 'acme' } }))).user).toEqual({
      username: 'u:alice',
      uid: 'alice-uid',
      groups: ['admin'],
      extra: { 'example.com/org': ['acme'], 'example.com/all': ['a', 'b'] },
    });
    expect((await a.authenticate(await token({}))).user).toEqual({ username: 'u:alice', uid: 'alice-uid', groups: [], extra: { 'example.com/all': ['a', 'b'] } });
    expect(await rejection(a, await token({ roles: [1, 2] }))).toBe('oidc: error evaluating group claim expression: group expression must return a string or a list of strings');
  });

  it('rejects a username expression that is not a non-empty string', async () => {
    const a = await authenticator({ mappings: { username: { claim: '', expression: 'claims.name' } } });
    expect(await rejection(a, await token({ name: 7 }))).toBe('oidc: error evaluating username claim expression: username claim expression must return a string');
    expect(await rejection(a, await token({ name: '' }))).toBe('oidc: empty username via CEL expression is not allowed');
    expect(await rejection(a, await token({}))).toMatch(/^oidc: error evaluating username claim expression: /);
  });

  it('applies required claims, claim validation expressions and user validation rules with their messages', async () => {
    const a = await authenticator({
      claimValidationRules: [
        { claim: 'hd', requiredValue: 'example.com', expression: '', message: '' },
        { claim: '', requiredValue: '', expression: 'claims.age >= 18', message: 'too young' },
      ],
      userValidationRules: [{ expression: "user.username != 'mallory'", message: 'no mallory' }],
    });
    expect((await a.authenticate(await token({ hd: 'example.com', age: 30 }))).user.username).toBe('alice');
    expect(await rejection(a, await token({ age: 30 }))).toBe('oidc: required claim hd not present in ID token');
    expect(await rejection(a, await token({ hd: 'x', age: 30 }))).toBe('oidc: required claim hd value does not match. Got = x, want = example.com');
    expect(await rejection(a, await token({ hd: 'example.com', age: 3 }))).toBe("oidc: error evaluating claim validation expression: validation expression 'claims.age >= 18' failed: too young");
    expect(await rejection(a, await token({ hd: 'example.com', age: 30, sub: 'mallory' }))).toBe(
      "oidc: error evaluating user info validation rule: validation expression 'user.username != 'mallory'' failed: no mallory",
    );
  });

  it('reports the expiry it verified, for the token cache', async () => {
    const a = await authenticator({});
    const { expiresAt } = await a.authenticate(await token({}));
    expect(expiresAt).toBeGreaterThan(Date.now() + 3500_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3600_000);
  });
});
