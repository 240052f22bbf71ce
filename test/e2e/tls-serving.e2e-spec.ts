import * as tls from 'node:tls';
import { startTestServer, TestServer } from '../support/test-server';

/** The protocol and suite a handshake with the server agrees on, or the client's error code. */
function handshake(server: TestServer, options: tls.ConnectionOptions = {}): Promise<string> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port: server.running.port, ca: server.running.material.caCertPem, ...options }, () => {
      resolve(`${socket.getProtocol()} ${socket.getCipher().standardName}`);
      socket.destroy();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(`error ${err.code}`));
  });
}

describe('--tls-min-version and --tls-cipher-suites', () => {
  let suites: TestServer;
  let tls13: TestServer;

  beforeAll(async () => {
    [suites, tls13] = await Promise.all([
      startTestServer({ options: { tlsCipherSuites: ['TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384', 'TLS_AES_128_GCM_SHA256'] } }),
      startTestServer({ options: { tlsMinVersion: 'VersionTLS13' } }),
    ]);
  });
  afterAll(async () => {
    await suites?.close();
    await tls13?.close();
  });

  it('refuses clients below TLS 1.2 by default, as kube', async () => {
    expect(await handshake(suites, { minVersion: 'TLSv1', maxVersion: 'TLSv1.1' })).toMatch(/^error ERR_SSL_/);
  });

  it('offers only the TLS 1.2 suites named, and every TLS 1.3 suite', async () => {
    expect(await handshake(suites, { maxVersion: 'TLSv1.2' })).toBe('TLSv1.2 TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384');
    expect(await handshake(suites, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' })).toMatch(/^error ERR_SSL_/);
    // TLS 1.3 suites are not configurable in Go, so naming one restricts nothing.
    expect(await handshake(suites, { ciphers: 'TLS_AES_256_GCM_SHA384' })).toBe('TLSv1.3 TLS_AES_256_GCM_SHA384');
    expect((await suites.admin.get('/api/v1/namespaces')).status).toBe(200);
  });

  it('refuses TLS 1.2 clients with --tls-min-version=VersionTLS13', async () => {
    expect(await handshake(tls13, { maxVersion: 'TLSv1.2' })).toMatch(/^error ERR_SSL_/);
    expect(await handshake(tls13)).toMatch(/^TLSv1\.3 /);
    expect((await tls13.admin.get('/api/v1/namespaces')).status).toBe(200);
  });
});
