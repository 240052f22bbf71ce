import { createPrivateKey, generateKeyPairSync, KeyObject, randomBytes, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { isIP } from 'node:net';
import { join } from 'node:path';
import * as forge from 'node-forge';
import { readConfigFile } from '../config/config-file';
import { ServerOptions } from '../config/options';

/** What the HTTPS listener and the admin kubeconfig need. */
export interface ServingMaterial {
  servingCertPem: string;
  servingKeyPem: string;
  /** The CA clients trust for the serving certificate (written into the kubeconfig). */
  caCertPem: string;
  /** The data-dir CA's key: it issues the admin client certificate. */
  caKeyPem?: string;
  /** Authorities whose client certificates authenticate callers. */
  clientCaPems: string[];
}

const DAY_MS = 24 * 3600 * 1000;

function newKeyPair(): { privateKeyPem: string; publicKey: forge.pki.PublicKey } {
  // Node generates RSA keys natively (fast); forge only builds the certificates.
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    publicKey: forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString()),
  };
}

function serial(): string {
  return '01' + randomBytes(15).toString('hex');
}

function buildCertificate(opts: {
  subject: forge.pki.CertificateField[];
  issuer?: forge.pki.CertificateField[];
  publicKey: forge.pki.PublicKey;
  signingKeyPem: string;
  validDays: number;
  extensions: object[];
}): string {
  const cert = forge.pki.createCertificate();
  cert.publicKey = opts.publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(Date.now() - 5 * 60 * 1000);
  cert.validity.notAfter = new Date(Date.now() + opts.validDays * DAY_MS);
  cert.setSubject(utf8(opts.subject));
  cert.setIssuer(utf8(opts.issuer ?? opts.subject));
  cert.setExtensions(opts.extensions);
  cert.sign(forge.pki.privateKeyFromPem(opts.signingKeyPem), forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

/** Names are UTF8String: user and group names may hold characters PrintableString lacks. */
function utf8(fields: forge.pki.CertificateField[]): forge.pki.CertificateField[] {
  return fields.map((f) => ({ ...f, valueTagClass: forge.asn1.Type.UTF8 as unknown as forge.asn1.Class }));
}

/** Unique even for authorities made in the same second: a verifier finds an issuer by its name. */
function caSubject(): forge.pki.CertificateField[] {
  return [{ name: 'commonName', value: `platform-ca-${Math.floor(Date.now() / 1000)}-${randomBytes(4).toString('hex')}` }];
}

function subjectOf(certPem: string): forge.pki.CertificateField[] {
  return forge.pki
    .certificateFromPem(certPem)
    .subject.attributes.map((a) => ({ type: a.type, value: a.value, valueTagClass: a.valueTagClass as forge.asn1.Class }));
}

export function createCertificateAuthority(): { certPem: string; keyPem: string } {
  const keys = newKeyPair();
  const subject = caSubject();
  const certPem = buildCertificate({
    subject,
    publicKey: keys.publicKey,
    signingKeyPem: keys.privateKeyPem,
    validDays: 3650,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, digitalSignature: true, keyEncipherment: true, critical: true },
    ],
  });
  return { certPem, keyPem: keys.privateKeyPem };
}

/** The names the serving certificate covers. */
export function servingNames(bindAddress: string): { dns: string[]; ips: string[] } {
  const dns = ['localhost', hostname()].filter((n, i, a) => n && a.indexOf(n) === i);
  const ips = ['127.0.0.1', '::1'];
  if (bindAddress && isIP(bindAddress) && bindAddress !== '0.0.0.0' && bindAddress !== '::' && !ips.includes(bindAddress)) ips.push(bindAddress);
  return { dns, ips };
}

export function issueServingCertificate(caCertPem: string, caKeyPem: string, bindAddress: string): { certPem: string; keyPem: string } {
  const keys = newKeyPair();
  const names = servingNames(bindAddress);
  const certPem = buildCertificate({
    subject: [{ name: 'commonName', value: 'platform-apiserver' }],
    issuer: subjectOf(caCertPem),
    publicKey: keys.publicKey,
    signingKeyPem: caKeyPem,
    validDays: 365,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [...names.dns.map((value) => ({ type: 2, value })), ...names.ips.map((ip) => ({ type: 7, ip }))] },
    ],
  });
  return { certPem, keyPem: keys.privateKeyPem };
}

/** A client certificate: CN = user name, each O = a group (kube's x509 authenticator). */
export function issueClientCertificate(
  caCertPem: string,
  caKeyPem: string,
  commonName: string,
  organizations: string[],
  validDays = 365,
): { certPem: string; keyPem: string } {
  const keys = newKeyPair();
  const certPem = buildCertificate({
    subject: [{ name: 'commonName', value: commonName }, ...organizations.map((value) => ({ name: 'organizationName', value }))],
    issuer: subjectOf(caCertPem),
    publicKey: keys.publicKey,
    signingKeyPem: caKeyPem,
    validDays,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', clientAuth: true },
    ],
  });
  return { certPem, keyPem: keys.privateKeyPem };
}

function writeSecret(path: string, content: string): void {
  writeFileSync(path, content, { mode: 0o600 });
}

function stillValid(certPem: string, bindAddress: string): boolean {
  const cert = new X509Certificate(certPem);
  if (new Date(cert.validTo).getTime() < Date.now() + DAY_MS) return false;
  const names = servingNames(bindAddress);
  const san = cert.subjectAltName ?? '';
  return names.ips.every((ip) => san.includes(ip === '::1' ? '0:0:0:0:0:0:0:1' : ip) || san.includes(ip)) && names.dns.every((d) => san.includes(d));
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The certificates of a PEM file, each parsed; `none` is the complaint when there is none.
 * Returns the file's text.
 */
function readCertificates(path: string, none: string): string {
  const text = readConfigFile(path);
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new Error(none);
  for (const block of blocks) new X509Certificate(block);
  return text;
}

/** `--client-ca-file`: authorities (PEM) whose client certificates authenticate callers. */
export function readClientCertificateAuthorities(path: string): string {
  try {
    return readCertificates(path, 'data does not contain any valid RSA or ECDSA certificates');
  } catch (err) {
    throw new Error(`unable to load client CA file ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
}

/** `--tls-cert-file`: the serving certificate and its chain (PEM). */
export function readServingCertificate(path: string): string {
  try {
    return readCertificates(path, 'tls: failed to find any PEM data in certificate input');
  } catch (err) {
    throw new Error(`unable to load server certificate from ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
}

/** `--tls-private-key-file`: the serving key (PEM), which must match the serving certificate. */
export function readServingKey(path: string, certPem: string): string {
  const fail = (why: string) => new Error(`unable to load server private key from ${JSON.stringify(path)}: ${why}`);
  const text = readConfigFile(path);
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) throw fail('tls: failed to find any PEM data in key input');
  let key: KeyObject;
  try {
    key = createPrivateKey(text);
  } catch {
    throw fail('tls: failed to parse private key');
  }
  const leaf = new X509Certificate(certPem.match(PEM_CERTIFICATE)![0]);
  if (!leaf.checkPrivateKey(key)) throw fail('tls: private key does not match public key');
  return text;
}

/** What the TLS flags name, read and checked at start. */
export interface ServingFiles {
  /** --tls-cert-file and --tls-private-key-file. */
  certificate?: { certPem: string; keyPem: string };
  /** --client-ca-file. */
  clientCaPem?: string;
}

/**
 * Serving certificate and client CAs: from the --tls-* files when given, else a CA and a
 * serving certificate generated once into <data-dir>/pki and reused (the serving
 * certificate is renewed when it nears expiry or misses a name).
 */
export async function ensureServingMaterial(options: Pick<ServerOptions, 'dataDir' | 'bindAddress'>, files: ServingFiles): Promise<ServingMaterial> {
  const pki = join(options.dataDir, 'pki');
  mkdirSync(pki, { recursive: true });
  const caCrt = join(pki, 'ca.crt');
  const caKey = join(pki, 'ca.key');
  if (!existsSync(caCrt) || !existsSync(caKey)) {
    const ca = createCertificateAuthority();
    writeSecret(caKey, ca.keyPem);
    writeFileSync(caCrt, ca.certPem);
  }
  const caCertPem = readFileSync(caCrt, 'utf8');
  const caKeyPem = readFileSync(caKey, 'utf8');
  const clientCaPems = [caCertPem];
  if (files.clientCaPem) clientCaPems.push(files.clientCaPem);

  if (files.certificate) {
    const { certPem: servingCertPem, keyPem: servingKeyPem } = files.certificate;
    // The kubeconfig must trust what signed the given certificate: the last certificate
    // of the given chain (a CA or a self-signed leaf), unless our own CA issued it.
    const chain = servingCertPem.match(PEM_CERTIFICATE) ?? [];
    const leaf = new X509Certificate(chain[0] ?? servingCertPem);
    const ours = leaf.checkIssued(new X509Certificate(caCertPem));
    return {
      servingCertPem,
      servingKeyPem,
      caCertPem: ours ? caCertPem : (chain[chain.length - 1] ?? servingCertPem) + '\n',
      caKeyPem,
      clientCaPems,
    };
  }

  const crt = join(pki, 'apiserver.crt');
  const key = join(pki, 'apiserver.key');
  if (!existsSync(crt) || !existsSync(key) || !stillValid(readFileSync(crt, 'utf8'), options.bindAddress)) {
    const serving = issueServingCertificate(caCertPem, caKeyPem, options.bindAddress);
    writeSecret(key, serving.keyPem);
    writeFileSync(crt, serving.certPem);
  }
  return { servingCertPem: readFileSync(crt, 'utf8'), servingKeyPem: readFileSync(key, 'utf8'), caCertPem, caKeyPem, clientCaPems };
}
