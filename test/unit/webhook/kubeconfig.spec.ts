import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadWebhookKubeconfig } from '../../../src/webhook-client/kubeconfig';

const dir = mkdtempSync(join(tmpdir(), 'webhook-kubeconfig-'));
const write = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('webhook kubeconfig', () => {
  it('uses the current context: server, CA data, client certificate files relative to the kubeconfig', () => {
    write('client.crt', 'CERT');
    write('client.key', 'KEY');
    const path = write(
      'full.yaml',
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: other',
        '  cluster: {server: "https://other:1"}',
        '- name: authz',
        `  cluster: {server: "https://127.0.0.1:9443/authorize", certificate-authority-data: "${Buffer.from('CA PEM').toString('base64')}"}`,
        'users:',
        '- name: apiserver',
        '  user: {client-certificate: client.crt, client-key: client.key}',
        'contexts:',
        '- name: webhook',
        '  context: {cluster: authz, user: apiserver}',
        'current-context: webhook',
      ].join('\n'),
    );
    const connection = loadWebhookKubeconfig(path);
    expect(connection.server.href).toBe('https://127.0.0.1:9443/authorize');
    expect(connection.certificateAuthority).toBe('CA PEM');
    expect(connection.clientCertificate).toBe('CERT');
    expect(connection.clientKey).toBe('KEY');
    expect(connection.insecureSkipTlsVerify).toBe(false);
  });

  it('takes the only cluster and a bearer token without a current context', () => {
    const path = write(
      'token.yaml',
      'clusters: [{name: a, cluster: {server: "http://127.0.0.1:8080/x", insecure-skip-tls-verify: true}}]\nusers: [{name: u, user: {token: s3cret}}]\n',
    );
    expect(loadWebhookKubeconfig(path)).toMatchObject({ token: 's3cret', insecureSkipTlsVerify: true });
  });

  it.each([
    ['no cluster', 'apiVersion: v1\nkind: Config\n', /^invalid configuration: no configuration has been provided in /],
    ['no server', 'clusters: [{name: a, cluster: {}}]\n', 'invalid configuration: no server found for cluster "a"'],
    ['a strange scheme', 'clusters: [{name: a, cluster: {server: "ftp://x"}}]\n', 'invalid configuration: server URL "ftp://x" must use https or http'],
    ['an unknown context', 'current-context: nope\nclusters: [{name: a, cluster: {server: "https://x"}}]\n', 'invalid configuration: context was not found for specified context: nope'],
    [
      'a missing CA file',
      'clusters: [{name: a, cluster: {server: "https://x", certificate-authority: missing-ca.pem}}]\n',
      /^invalid configuration: unable to read certificate-authority .*missing-ca\.pem/,
    ],
  ])('rejects %s', (_what, text, message) => {
    expect(() => loadWebhookKubeconfig(write(`bad-${Math.random()}.yaml`, text))).toThrow(message);
  });
});
