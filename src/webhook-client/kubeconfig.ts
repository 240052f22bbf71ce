import { dirname, isAbsolute, resolve } from 'node:path';
import * as YAML from 'yaml';
import { readConfigFile } from '../config/config-file';

/** Where and how to call a webhook, from its kubeconfig file. */
export interface WebhookConnection {
  server: URL;
  /** PEM authorities for the server's certificate (system roots when unset). */
  certificateAuthority?: string;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
  clientCertificate?: string;
  clientKey?: string;
  token?: string;
  username?: string;
  password?: string;
}

export class KubeconfigError extends Error {}

type Named<T> = { name?: string } & T;
interface Kubeconfig {
  'current-context'?: string;
  clusters?: Array<Named<{ cluster?: Record<string, unknown> }>>;
  users?: Array<Named<{ user?: Record<string, unknown> }>>;
  contexts?: Array<Named<{ context?: { cluster?: string; user?: string } }>>;
}

/**
 * Loads a webhook kubeconfig as kube's webhookutil.LoadKubeconfig does: the current context
 * picks the cluster (server URL, CA) and the user (client certificate, token, basic auth);
 * file references are relative to the kubeconfig's own directory.
 */
export function loadWebhookKubeconfig(path: string): WebhookConnection {
  let config: Kubeconfig;
  try {
    config = (YAML.parse(readConfigFile(path)) ?? {}) as Kubeconfig;
  } catch (err) {
    throw new KubeconfigError(`invalid configuration: cannot load kubeconfig ${path}: ${(err as Error).message.split('\n')[0]}`);
  }
  const base = dirname(path);
  const fileText = (field: string, value: unknown): string => {
    const file = isAbsolute(String(value)) ? String(value) : resolve(base, String(value));
    try {
      return readConfigFile(file);
    } catch (err) {
      throw new KubeconfigError(`invalid configuration: unable to read ${field} ${file} for webhook kubeconfig ${path}: ${(err as Error).message}`);
    }
  };
  const dataText = (field: string, value: unknown): string => Buffer.from(String(value), 'base64').toString('utf8');
  const pick = (section: Record<string, unknown>, dataField: string, fileField: string): string | undefined => {
    if (section[dataField]) return dataText(dataField, section[dataField]);
    if (section[fileField]) return fileText(fileField, section[fileField]);
    return undefined;
  };

  const contexts = config.contexts ?? [];
  const contextName = config['current-context'] || (contexts.length === 1 ? contexts[0].name : undefined);
  const context = contextName ? contexts.find((c) => c.name === contextName)?.context : undefined;
  if (contextName && !context) throw new KubeconfigError(`invalid configuration: context was not found for specified context: ${contextName}`);
  const clusters = config.clusters ?? [];
  const clusterEntry = context?.cluster ? clusters.find((c) => c.name === context.cluster) : clusters.length === 1 ? clusters[0] : undefined;
  if (!clusterEntry?.cluster) throw new KubeconfigError(`invalid configuration: no configuration has been provided in ${path}`);
  const cluster = clusterEntry.cluster;
  const users = config.users ?? [];
  const user = (context?.user ? users.find((u) => u.name === context.user)?.user : !context && users.length === 1 ? users[0].user : undefined) ?? {};

  const serverText = String(cluster.server ?? '');
  if (!serverText) throw new KubeconfigError(`invalid configuration: no server found for cluster ${JSON.stringify(clusterEntry.name ?? '')}`);
  let server: URL;
  try {
    server = new URL(serverText);
  } catch {
    throw new KubeconfigError(`invalid configuration: invalid server URL ${JSON.stringify(serverText)}`);
  }
  if (server.protocol !== 'https:' && server.protocol !== 'http:') {
    throw new KubeconfigError(`invalid configuration: server URL ${JSON.stringify(serverText)} must use https or http`);
  }
  const connection: WebhookConnection = { server, insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'] === true };
  const ca = pick(cluster, 'certificate-authority-data', 'certificate-authority');
  if (ca) connection.certificateAuthority = ca;
  if (cluster['tls-server-name']) connection.tlsServerName = String(cluster['tls-server-name']);
  const cert = pick(user, 'client-certificate-data', 'client-certificate');
  const key = pick(user, 'client-key-data', 'client-key');
  if (!!cert !== !!key) throw new KubeconfigError(`invalid configuration: client-certificate and client-key must be given together in ${path}`);
  if (cert && key) {
    connection.clientCertificate = cert;
    connection.clientKey = key;
  }
  const token = user.token ? String(user.token) : user.tokenFile ? fileText('tokenFile', user.tokenFile).trim() : undefined;
  if (token) connection.token = token;
  if (user.username) {
    connection.username = String(user.username);
    connection.password = String(user.password ?? '');
  }
  return connection;
}
