import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { issueClientCertificate, createCertificateAuthority } from '../../../src/server/certificates';
import { keyId, parseSigningKey, parseVerificationKeys } from '../../../src/authentication/serviceaccount/keys';
import { validateBootstrapTokenSecret } from '../../../src/core/kinds/bootstrap-token';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('service-account keys', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });

  it("derives kube's key id: unpadded base64url SHA-256 of the public key's PKIX DER", () => {
    const der = rsa.publicKey.export({ type: 'spki', format: 'der' });
    expect(keyId(rsa.publicKey)).toBe(createHash('sha256').update(der).digest('base64url'));
    expect(keyId(rsa.publicKey)).not.toMatch(/[=+/]/);
  });

  it('reads public keys, private keys and certificates, RSA and ECDSA, several per file', () => {
    const ca = createCertificateAuthority();
    const cert = issueClientCertificate(ca.certPem, ca.keyPem, 'x', []);
    const pem = [
      rsa.publicKey.export({ type: 'spki', format: 'pem' }),
      ec384.privateKey.export({ type: 'sec1', format: 'pem' }),
      rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }),
      cert.certPem,
    ].join('\n');
    const keys = parseVerificationKeys(pem);
    expect(keys.map((k) => k.alg)).toEqual(['RS256', 'ES384', 'RS256', 'RS256']);
    expect(keys[1].kid).toBe(keyId(createPublicKey(ec384.privateKey)));
    expect(keys[0].kid).toBe(keys[2].kid);
  });

  it("refuses files without a usable key in kube's words", () => {
    const ed = generateKeyPairSync('ed25519');
    expect(() => parseVerificationKeys('nothing here')).toThrow('data does not contain any valid RSA or ECDSA public keys');
    expect(() => parseVerificationKeys(ed.publicKey.export({ type: 'spki', format: 'pem' }).toString())).toThrow('data does not contain any valid RSA or ECDSA public keys');
    expect(() => parseSigningKey(rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString())).toThrow('data does not contain a valid RSA or ECDSA private key');
    expect(parseSigningKey(ec384.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()).alg).toBe('ES384');
  });
});

describe('bootstrap token Secret validation', () => {
  const valid = { 'token-id': b64('abcdef'), 'token-secret': b64('0123456789abcdef'), expiration: b64('2030-01-02T03:04:05Z'), 'auth-extra-groups': b64('system:bootstrappers:a,system:bootstrappers:b-c') };

  it('accepts a well-formed token Secret', () => {
    expect(validateBootstrapTokenSecret('bootstrap-token-abcdef', valid)).toEqual([]);
  });

  it('checks the id, the secret (never echoed), the name, the expiration and the extra groups', () => {
    const errs = validateBootstrapTokenSecret('bootstrap-token-abcdef', {
      'token-id': b64('ABCDEF'),
      'token-secret': b64('too-short'),
      expiration: b64('2030-01-02'),
      'auth-extra-groups': b64('system:masters'),
    });
    expect(errs.map((e) => e.field)).toEqual(['data[token-id]', 'data[token-secret]', 'data[expiration]', 'data[auth-extra-groups]']);
    expect(JSON.stringify(errs)).not.toContain('too-short');
    expect(validateBootstrapTokenSecret('bootstrap-token-zzzzzz', valid).map((e) => e.field)).toEqual(['metadata.name']);
    expect(validateBootstrapTokenSecret('bootstrap-token-abcdef', {}).map((e) => `${e.type} ${e.field}`)).toEqual([
      'FieldValueRequired data[token-id]',
      'FieldValueRequired data[token-secret]',
    ]);
  });
});
