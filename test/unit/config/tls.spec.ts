import { AddressInfo } from 'node:net';
import * as tls from 'node:tls';
import {
  INSECURE_CIPHER_SUITES,
  insecureCipherSuites,
  parseCipherSuites,
  parseTlsVersion,
  PREFERRED_CIPHER_SUITES,
  TLS_VERSION_NAMES,
  tlsHandshakeSettings,
} from '../../../src/config/tls';
import { createCertificateAuthority, issueServingCertificate } from '../../../src/server/certificates';

/** kube's legacy spellings of the CHACHA20 suites name the IANA suites with _SHA256. */
const ianaName = (goName: string) => (goName.endsWith('_CHACHA20_POLY1305') ? `${goName}_SHA256` : goName);

describe('TLS versions and cipher suites (kube-apiserver names)', () => {
  it('reads the four Go version names and refuses others in kube words', () => {
    expect(TLS_VERSION_NAMES).toEqual(['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13']);
    expect(parseTlsVersion('VersionTLS13')).toBe('VersionTLS13');
    expect(() => parseTlsVersion('TLSv1.3')).toThrow('unknown tls version "TLSv1.3"');
    expect(tlsHandshakeSettings('VersionTLS12', [])).toEqual({ minVersion: 'TLSv1.2' });
    expect(tlsHandshakeSettings('VersionTLS13', [])).toEqual({ minVersion: 'TLSv1.3' });
  });

  it("accepts kube's names this TLS library can serve and refuses the rest in kube words", () => {
    expect(PREFERRED_CIPHER_SUITES).toEqual(expect.arrayContaining(['TLS_AES_128_GCM_SHA256', 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305']));
    expect(INSECURE_CIPHER_SUITES).toEqual(expect.arrayContaining(['TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256']));
    expect([...PREFERRED_CIPHER_SUITES].sort()).toEqual(PREFERRED_CIPHER_SUITES);
    expect(parseCipherSuites(['TLS_AES_256_GCM_SHA384', 'TLS_RSA_WITH_AES_128_CBC_SHA256'])).toEqual(['TLS_AES_256_GCM_SHA384', 'TLS_RSA_WITH_AES_128_CBC_SHA256']);
    expect(() => parseCipherSuites(['TLS_FAKE_SUITE'])).toThrow("Cipher suite TLS_FAKE_SUITE not supported or doesn't exist");
    // Node's OpenSSL has neither RC4 nor 3DES: accepting them would be a promise the server cannot keep.
    const servable = new Set(tls.getCiphers());
    if (!servable.has('rc4-sha')) expect(() => parseCipherSuites(['TLS_RSA_WITH_RC4_128_SHA'])).toThrow('not supported');
    if (!servable.has('des-cbc3-sha')) expect(() => parseCipherSuites(['TLS_RSA_WITH_3DES_EDE_CBC_SHA'])).toThrow('not supported');
    expect(insecureCipherSuites(['TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256', 'TLS_AES_128_GCM_SHA256'])).toEqual(['TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256']);
  });

  it('keeps every TLS 1.3 suite on, as Go does, and only TLS 1.3 when no other suite is named', () => {
    expect(tlsHandshakeSettings('VersionTLS12', ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_AES_128_GCM_SHA256'])).toEqual({
      minVersion: 'TLSv1.2',
      ciphers: 'ECDHE-RSA-AES128-GCM-SHA256:TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256',
    });
    expect(tlsHandshakeSettings('VersionTLS12', ['TLS_AES_256_GCM_SHA384']).ciphers).toBe('TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256');
    // TLS 1.0 and 1.1 sign with SHA-1, which OpenSSL refuses above security level 0.
    expect(tlsHandshakeSettings('VersionTLS10', []).ciphers).toMatch(/:@SECLEVEL=0$/);
  });

  describe('handshakes', () => {
    const ca = createCertificateAuthority();
    const serving = issueServingCertificate(ca.certPem, ca.keyPem, '127.0.0.1');

    /** The suite and protocol a handshake with a server so configured agrees on, or the client's error code. */
    async function handshake(server: { minVersion: string; ciphers?: string }, client: tls.ConnectionOptions): Promise<string> {
      const listener = tls.createServer({ key: serving.keyPem, cert: serving.certPem, ...(server as tls.TlsOptions) }, (socket) => socket.end());
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      try {
        return await new Promise<string>((resolve) => {
          const socket = tls.connect({ port: (listener.address() as AddressInfo).port, host: '127.0.0.1', ca: ca.certPem, ...client }, () => {
            resolve(`${socket.getProtocol()} ${socket.getCipher().standardName}`);
            socket.destroy();
          });
          socket.on('error', (err: NodeJS.ErrnoException) => resolve(`error ${err.code}`));
        });
      } finally {
        await new Promise<void>((resolve) => listener.close(() => resolve()));
      }
    }

    it('serves each RSA suite under its own name in TLS 1.2', async () => {
      const rsaSuites = [...PREFERRED_CIPHER_SUITES, ...INSECURE_CIPHER_SUITES].filter((name) => !name.includes('ECDSA') && !/^TLS_(AES|CHACHA20)_/.test(name));
      expect(rsaSuites.length).toBeGreaterThan(10);
      for (const name of rsaSuites) {
        expect(await handshake(tlsHandshakeSettings('VersionTLS12', [name]), { maxVersion: 'TLSv1.2' })).toBe(`TLSv1.2 ${ianaName(name)}`);
      }
    });

    it('names the ECDSA suites as their RSA twins', () => {
      for (const name of PREFERRED_CIPHER_SUITES.filter((n) => n.includes('_ECDSA_'))) {
        const twin = name.replace('_ECDSA_', '_RSA_');
        expect(tlsHandshakeSettings('VersionTLS12', [name]).ciphers!.split(':')[0]).toBe(tlsHandshakeSettings('VersionTLS12', [twin]).ciphers!.split(':')[0].replace('ECDHE-RSA-', 'ECDHE-ECDSA-'));
      }
    });

    it('refuses a TLS 1.1 client at the default minimum and accepts it when asked to', async () => {
      expect(await handshake(tlsHandshakeSettings('VersionTLS12', []), { minVersion: 'TLSv1', maxVersion: 'TLSv1.1' })).toMatch(/^error /);
      expect(await handshake(tlsHandshakeSettings('VersionTLS11', []), { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT:@SECLEVEL=0' })).toMatch(/^TLSv1\.1 /);
    });
  });
});
