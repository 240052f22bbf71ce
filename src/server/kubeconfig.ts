import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as YAML from 'yaml';
import { SYSTEM_MASTERS } from '../apimachinery/user-info';
import { issueClientCertificate, ServingMaterial } from './certificates';

export const ADMIN_USER = 'platform-admin';

const b64 = (pem: string) => Buffer.from(pem).toString('base64');

/**
 * Writes <data-dir>/admin.kubeconfig: the server URL, the CA, and a client certificate of
 * the data-dir CA for a member of system:masters. When the file exists only the server URL
 * and CA are refreshed (a new port), keeping the credential.
 */
export async function writeAdminKubeconfig(dataDir: string, serverUrl: string, material: ServingMaterial): Promise<string> {
  const path = join(dataDir, 'admin.kubeconfig');
  const cluster = { server: serverUrl, 'certificate-authority-data': b64(material.caCertPem) };
  if (existsSync(path)) {
    const existing = YAML.parse(readFileSync(path, 'utf8')) as { clusters?: Array<{ cluster: Record<string, string> }> };
    const current = existing?.clusters?.[0]?.cluster;
    if (current && current.server === cluster.server && current['certificate-authority-data'] === cluster['certificate-authority-data']) return path;
    if (current) {
      existing.clusters![0].cluster = { ...current, ...cluster };
      writeFileSync(path, YAML.stringify(existing), { mode: 0o600 });
      return path;
    }
  }
  if (!material.caKeyPem) throw new Error('cannot issue the admin credential: the data-dir CA key is missing');
  const client = issueClientCertificate(material.clientCaPems[0], material.caKeyPem, ADMIN_USER, [SYSTEM_MASTERS]);
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'platform', cluster }],
    users: [{ name: 'admin', user: { 'client-certificate-data': b64(client.certPem), 'client-key-data': b64(client.keyPem) } }],
    contexts: [{ name: 'admin@platform', context: { cluster: 'platform', user: 'admin' } }],
    'current-context': 'admin@platform',
    preferences: {},
  };
  writeFileSync(path, YAML.stringify(config), { mode: 0o600 });
  return path;
}
