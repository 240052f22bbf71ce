import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { ResourceRegistry } from '../registry/resources/registry';
import { Target } from '../registry/rest/storage';
import { StatusError } from '../apimachinery/errors';
import { SYSTEM_USER } from '../apimachinery/user-info';
import { AUTHENTICATION_SETTINGS, AuthenticationSettings } from './authenticator';
import { ConfigMap, configMapType } from '../core/kinds/config-map';

export const AUTHENTICATION_TRUST_NAMESPACE = 'kube-system';
export const AUTHENTICATION_TRUST_NAME = 'extension-apiserver-authentication';
const RETRY_DELAY_MS = 1000;
/** kube's controller re-checks the ConfigMap every minute. */
const RESYNC_INTERVAL_MS = 60_000;

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates of both bundles, each once, in order. */
function unionPem(existing: string | undefined, ours: string[]): string {
  const blocks = [...new Set([...(existing ?? '').matchAll(PEM_CERTIFICATE), ...ours.join('\n').matchAll(PEM_CERTIFICATE)].map((m) => m[0]))];
  return blocks.map((block) => `${block}\n`).join('');
}

/** A JSON list entry holding both lists' values, each once. */
function unionList(existing: string | undefined, ours: string[]): string {
  let before: unknown = [];
  try {
    before = JSON.parse(existing ?? '[]');
  } catch {
    // a value someone broke is replaced by ours
  }
  return JSON.stringify([...new Set([...(Array.isArray(before) ? before.filter((v) => typeof v === 'string') : []), ...ours])]);
}

/**
 * kube's cluster authentication trust: what the ConfigMap should hold so that extension
 * servers can verify callers as this server does, merged with what other servers (or
 * replicas) published, since each adds its own authorities.
 */
export function authenticationTrustData(existing: Record<string, string> | undefined, settings: AuthenticationSettings): Record<string, string> {
  const data: Record<string, string> = { ...(existing ?? {}) };
  data['client-ca-file'] = unionPem(data['client-ca-file'], settings.clientCaPems ?? []);
  const proxy = settings.requestHeader;
  if (proxy) {
    data['requestheader-client-ca-file'] = unionPem(data['requestheader-client-ca-file'], [proxy.clientCaPem]);
    data['requestheader-username-headers'] = unionList(data['requestheader-username-headers'], proxy.usernameHeaders);
    data['requestheader-uid-headers'] = unionList(data['requestheader-uid-headers'], proxy.uidHeaders);
    data['requestheader-group-headers'] = unionList(data['requestheader-group-headers'], proxy.groupHeaders);
    data['requestheader-extra-headers-prefix'] = unionList(data['requestheader-extra-headers-prefix'], proxy.extraHeaderPrefixes);
    data['requestheader-allowed-names'] = unionList(data['requestheader-allowed-names'], proxy.allowedNames);
  }
  return data;
}

const sameData = (a: Record<string, string> | undefined, b: Record<string, string>) => JSON.stringify(Object.entries(a ?? {}).sort()) === JSON.stringify(Object.entries(b).sort());

/**
 * Publishes ConfigMap kube-system/extension-apiserver-authentication (kube's
 * cluster-authentication-trust controller) through the ConfigMap storage as the server
 * itself: at start, retried until kube-system exists and no other writer is in the way,
 * then checked every minute (a deleted or edited ConfigMap is put right).
 */
@Injectable()
export class AuthenticationTrustPublisher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ClusterAuthenticationTrust');
  private readonly stop = new AbortController();

  constructor(
    private readonly registry: ResourceRegistry,
    @Inject(AUTHENTICATION_SETTINGS) private readonly settings: AuthenticationSettings,
  ) {}

  onApplicationBootstrap(): void {
    // In the background: readiness does not wait for the write (kube's hook is done once the controller runs).
    void this.run();
  }

  onApplicationShutdown(): void {
    this.stop.abort();
  }

  private async run(): Promise<void> {
    while (!this.stop.signal.aborted) {
      let wait = RESYNC_INTERVAL_MS;
      try {
        await this.publish();
      } catch (err) {
        const transient = err instanceof StatusError && (err.code === 404 || err.code === 409);
        if (!transient) this.logger.error(`unable to publish ${AUTHENTICATION_TRUST_NAMESPACE}/${AUTHENTICATION_TRUST_NAME}: ${(err as Error).message}`);
        wait = RETRY_DELAY_MS;
      }
      try {
        await sleep(wait, undefined, { signal: this.stop.signal });
      } catch {
        return;
      }
    }
  }

  private async publish(): Promise<void> {
    const entry = this.registry.lookup(configMapType.group, configMapType.version, configMapType.plural);
    if (!entry?.storage.get || !entry.storage.create || !entry.storage.update) return;
    const target: Target = { type: entry.type, groupResource: { group: '', resource: configMapType.plural }, namespace: AUTHENTICATION_TRUST_NAMESPACE, name: AUTHENTICATION_TRUST_NAME };
    const options = { user: SYSTEM_USER, dryRun: false };
    let current: ConfigMap | undefined;
    try {
      current = (await entry.storage.get(target, { user: SYSTEM_USER })) as ConfigMap;
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404 && err.reason === 'NotFound' && err.details?.kind === 'configmaps')) throw err;
    }
    const data = authenticationTrustData(current?.data, this.settings);
    if (!current) {
      await entry.storage.create(target, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: AUTHENTICATION_TRUST_NAME, namespace: AUTHENTICATION_TRUST_NAMESPACE }, data }, options);
    } else if (!sameData(current.data, data)) {
      await entry.storage.update(target, { ...current, data }, options);
    }
  }
}
