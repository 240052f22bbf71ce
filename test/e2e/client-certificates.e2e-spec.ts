import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as forge from 'node-forge';
import { createCertificateAuthority, issueClientCertificate } from '../../src/server/certificates';
import { ClientIdentity } from '../support/https-client';
import { startTestServer, TestServer } from '../support/test-server';

const WHOAMI = '/apis/authentication.platform.io/v1/selfsubjectreviews';
const DAY = 24 * 3600 * 1000;

/** A client certificate with chosen validity and extended key usages (none: no extension). */
function certificate(ca: { certPem: string; keyPem: string }, cn: string, opts: { notBefore: Date; notAfter: Date; eku?: Record<string, boolean> }): ClientIdentity {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = '01' + Date.now().toString(16);
  cert.validity.notBefore = opts.notBefore;
  cert.validity.notAfter = opts.notAfter;
  cert.setSubject([{ name: 'commonName', value: cn }]);
  cert.setIssuer(forge.pki.certificateFromPem(ca.certPem).subject.attributes);
  const extensions: object[] = [{ name: 'basicConstraints', cA: false }, { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true }];
  if (opts.eku) extensions.push({ name: 'extKeyUsage', ...opts.eku });
  cert.setExtensions(extensions);
  cert.sign(forge.pki.privateKeyFromPem(ca.keyPem), forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

describe('client certificates (--client-ca-file with several authorities)', () => {
  let server: TestServer;
  const first = createCertificateAuthority();
  const second = createCertificateAuthority();

  async function whoami(as: ClientIdentity) {
    return server.anonymous.post(WHOAMI, { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' }, { as });
  }

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-ca-'));
    writeFileSync(join(dir, 'ca.pem'), first.certPem + second.certPem);
    server = await startTestServer({ options: { clientCaFile: join(dir, 'ca.pem') } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('accepts certificates of every authority in the file: CN is the user, each O a group', async () => {
    for (const [ca, name] of [
      [first, 'alice'],
      [second, 'bob'],
    ] as const) {
      const issued = issueClientCertificate(ca.certPem, ca.keyPem, name, ['team-a', 'team-b']);
      const res = await whoami({ cert: issued.certPem, key: issued.keyPem });
      expect(res.status).toBe(201);
      expect(res.body.status.userInfo).toEqual({ username: name, groups: ['team-a', 'team-b', 'system:authenticated'] });
    }
    const noEku = certificate(first, 'carol', { notBefore: new Date(Date.now() - DAY), notAfter: new Date(Date.now() + DAY) });
    expect((await whoami(noEku)).body.status.userInfo.username).toBe('carol');
  });

  it('answers 401 (never anonymous) for expired, not-yet-valid, wrong-usage and foreign certificates', async () => {
    const foreign = createCertificateAuthority();
    const foreignCert = issueClientCertificate(foreign.certPem, foreign.keyPem, 'mallory', ['system:masters']);
    const bad: Record<string, ClientIdentity> = {
      expired: certificate(first, 'old', { notBefore: new Date(Date.now() - 10 * DAY), notAfter: new Date(Date.now() - DAY), eku: { clientAuth: true } }),
      'not yet valid': certificate(first, 'early', { notBefore: new Date(Date.now() + DAY), notAfter: new Date(Date.now() + 10 * DAY), eku: { clientAuth: true } }),
      'server usage only': certificate(second, 'server', { notBefore: new Date(Date.now() - DAY), notAfter: new Date(Date.now() + DAY), eku: { serverAuth: true } }),
      foreign: { cert: foreignCert.certPem, key: foreignCert.keyPem },
    };
    for (const [what, identity] of Object.entries(bad)) {
      const res = await whoami(identity);
      expect({ what, status: res.status, body: res.body }).toEqual({
        what,
        status: 401,
        body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 },
      });
    }
  });

  it('lets a request with a refused certificate through on a valid bearer token of another method', async () => {
    await server.admin.post('/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'both' } });
    const token = (await server.admin.post('/api/v1/namespaces/default/serviceaccounts/both/token', { spec: {} })).body.status.token;
    const foreign = createCertificateAuthority();
    const foreignCert = issueClientCertificate(foreign.certPem, foreign.keyPem, 'mallory', ['system:masters']);
    const res = await whoami({ cert: foreignCert.certPem, key: foreignCert.keyPem, token });
    expect(res.status).toBe(201);
    expect(res.body.status.userInfo.username).toBe('system:serviceaccount:default:both');
  });
});
