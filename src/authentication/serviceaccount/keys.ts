import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readConfigFile } from '../../config/config-file';

/**
 * Keys of the service-account token issuer, read as kube's keyutil reads them: PEM blocks of
 * RSA or ECDSA keys (public keys, private keys, or certificates for verification).
 */

/** A key tokens are verified with: its kube key id and the JWS algorithm it signs with. */
export interface VerificationKey {
  key: KeyObject;
  kid: string;
  alg: string;
}

/** The key tokens are signed with. */
export interface SigningKey {
  privateKey: KeyObject;
  kid: string;
  alg: string;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;

function pemBlocks(pem: string): Array<{ type: string; text: string }> {
  return [...pem.matchAll(PEM_BLOCK)].map((m) => ({ type: m[1], text: m[0] }));
}

/** RSA or ECDSA on the curves JWS has algorithms for; anything else is refused. */
function algorithmOf(key: KeyObject): string | undefined {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    return curve === 'prime256v1' ? 'ES256' : curve === 'secp384r1' ? 'ES384' : curve === 'secp521r1' ? 'ES512' : undefined;
  }
  return undefined;
}

/** kube's keyIDFromPublicKey: the unpadded base64url SHA-256 of the key's PKIX (SPKI) DER. */
export function keyId(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
}

function publicKeyOfBlock(block: { type: string; text: string }): KeyObject | undefined {
  try {
    if (block.type === 'CERTIFICATE') return new X509Certificate(block.text).publicKey;
    if (block.type.endsWith('PRIVATE KEY')) return createPublicKey(createPrivateKey(block.text));
    if (block.type.endsWith('PUBLIC KEY')) return createPublicKey(block.text);
  } catch {
    return undefined;
  }
  return undefined;
}

/** Every RSA or ECDSA key of a PEM text, as public keys (kube's ReadPublicKeys). */
export function parseVerificationKeys(pem: string): VerificationKey[] {
  const keys: VerificationKey[] = [];
  for (const block of pemBlocks(pem)) {
    const key = publicKeyOfBlock(block);
    const alg = key && algorithmOf(key);
    if (key && alg) keys.push({ key, kid: keyId(key), alg });
  }
  if (!keys.length) throw new Error('data does not contain any valid RSA or ECDSA public keys');
  return keys;
}

/** The first RSA or ECDSA private key of a PEM text (kube's ParsePrivateKeyPEM). */
export function parseSigningKey(pem: string): SigningKey {
  for (const block of pemBlocks(pem)) {
    if (!block.type.endsWith('PRIVATE KEY')) continue;
    let privateKey: KeyObject;
    try {
      privateKey = createPrivateKey(block.text);
    } catch {
      continue;
    }
    const alg = algorithmOf(privateKey);
    if (alg) return { privateKey, kid: keyId(createPublicKey(privateKey)), alg };
  }
  throw new Error('data does not contain a valid RSA or ECDSA private key');
}

export function verificationKeyOf(signing: SigningKey): VerificationKey {
  return { key: createPublicKey(signing.privateKey), kid: signing.kid, alg: signing.alg };
}

export function readVerificationKeys(path: string): VerificationKey[] {
  return parseVerificationKeys(readConfigFile(path));
}

export function readSigningKey(path: string): SigningKey {
  return parseSigningKey(readConfigFile(path));
}

/** Where a server without --service-account-signing-key-file keeps the key it generated. */
export function generatedSigningKeyPath(dataDir: string): string {
  return join(dataDir, 'pki', 'service-account.key');
}

/**
 * The signing key of a development server: generated once (RSA 2048) into the data
 * directory, then reused, so tokens stay valid across restarts.
 */
export function ensureGeneratedSigningKey(dataDir: string): SigningKey {
  const path = generatedSigningKeyPath(dataDir);
  if (!existsSync(path)) {
    mkdirSync(join(dataDir, 'pki'), { recursive: true });
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(path, privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(), { mode: 0o600 });
  }
  return readSigningKey(path);
}
