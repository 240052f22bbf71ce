import { generateKeyPairSync, KeyObject } from 'node:crypto';
import { Authenticator } from '../../../src/authentication/authenticator';
import { parseSigningKey, verificationKeyOf } from '../../../src/authentication/serviceaccount/keys';
import { ObjectLookup } from '../../../src/authentication/serviceaccount/object-lookup';
import { ServiceAccountTokenStrategy } from '../../../src/authentication/serviceaccount/service-account-token.strategy';
import { ServiceAccountTokens } from '../../../src/authentication/serviceaccount/service-account-tokens';
import { Jose, loadJose } from '../../../src/authentication/serviceaccount/jose';
import { ObjectStore } from '../../../src/storage/mvcc/object-store';

const ISSUER = 'https://issuer.test';
const pem = (key: KeyObject) => key.export({ type: 'pkcs8', format: 'pem' }).toString();

/** Service-account tokens through the union's passport chain, verified by passport-jwt, refused in kube's words. */
describe('service-account token method', () => {
  let jose: Jose;
  let tokens: ServiceAccountTokens;
  let union: Authenticator;
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;

  beforeAll(async () => {
    jose = await loadJose();
    const signing = parseSigningKey(pem(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey));
    const second = parseSigningKey(pem(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey));
    tokens = await new ServiceAccountTokens({
      issuers: [ISSUER],
      apiAudiences: ['api'],
      signing,
      // Two keys of one algorithm: a token naming neither is verified with the one that signed it.
      verification: [verificationKeyOf(second), verificationKeyOf(signing)],
      maxExpirationSeconds: 0,
      lookup: false,
      caCertPem: '',
    }).init();
    union = new Authenticator({ anonymous: true });
    // Without --service-account-lookup a bound token is checked against nothing stored.
    union.register(new ServiceAccountTokenStrategy(tokens, new ObjectLookup({} as ObjectStore)));
  });

  const spec = { namespace: 'ns', serviceAccount: { name: 'robot', uid: 'u-1' }, audiences: ['api'], expirationSeconds: 600 };
  const signed = (claims: Record<string, unknown>, header: Record<string, unknown>, key: KeyObject) => new jose.SignJWT(claims).setProtectedHeader({ alg: 'RS256', ...header }).sign(key);
  const now = () => Math.floor(Date.now() / 1000);
  const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;

  it('accepts an issued token, for the audiences it names', async () => {
    const { token } = await tokens.issue(spec);
    expect(await union.authenticateToken(token, undefined)).toMatchObject({
      authenticated: true,
      user: { username: 'system:serviceaccount:ns:robot', uid: 'u-1', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated'] },
      audiences: ['api'],
    });
    expect(await union.authenticateToken(token, ['other'])).toEqual({ authenticated: false, error: '[token audiences are invalid for the target audiences]' });
  });

  it("refuses tokens of its issuers in kube's words, and leaves other tokens to other methods", async () => {
    const { token } = await tokens.issue(spec);
    const claims = claimsOf(token);
    const signing = tokens.settings.signing.privateKey;
    const refusal = async (t: string) => (await union.authenticateToken(t, undefined)) as { error: string };
    expect((await refusal(await signed({ ...claims, exp: now() - 120 }, {}, signing))).error).toBe('[service account token has expired]');
    expect((await refusal(await signed({ ...claims, nbf: now() + 120 }, {}, signing))).error).toBe('[service account token is not valid yet]');
    expect((await refusal(await signed(claims, { kid: 'unknown' }, other))).error).toBe('[invalid signature]');
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${token.split('.')[1]}.`;
    expect((await refusal(unsigned)).error).toBe('[invalid signature algorithm]');
    // Within the leeway, and with no key id: the key that signed it.
    expect((await union.authenticateToken(await signed({ ...claims, exp: now() - 30 }, {}, signing), undefined)).authenticated).toBe(true);
    // Another issuer's token, or no JWT at all: not this method's (no reason given).
    expect(await union.authenticateToken(await signed({ ...claims, iss: 'https://elsewhere' }, {}, signing), undefined)).toEqual({ authenticated: false, error: '' });
    expect(await union.authenticateToken('not-a-jwt', undefined)).toEqual({ authenticated: false, error: '' });
  });
});
