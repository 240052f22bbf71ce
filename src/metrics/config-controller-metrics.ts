import { createHash } from 'node:crypto';
import { APISERVER_ID_HASH } from './apiserver-identity';
import { metricsCatalog } from './registry';

/**
 * kube's configuration-controller metrics, one set per configuration file kind
 * (apiserver/pkg/server/options/{authorization,authentication}config/metrics).
 */
export function configControllerMetrics(kind: 'authorization' | 'authentication') {
  const reloads = metricsCatalog.counter({
    stabilityLevel: 'ALPHA',
    name: `apiserver_${kind}_config_controller_automatic_reloads_total`,
    help: `Total number of automatic reloads of ${kind} configuration split by status and apiserver identity.`,
    labelNames: ['status', 'apiserver_id_hash'],
  });
  const lastReload = metricsCatalog.gauge({
    stabilityLevel: 'ALPHA',
    name: `apiserver_${kind}_config_controller_automatic_reload_last_timestamp_seconds`,
    help: `Timestamp of the last automatic reload of ${kind} configuration split by status and apiserver identity.`,
    labelNames: ['status', 'apiserver_id_hash'],
  });
  const lastConfigInfo = metricsCatalog.gauge({
    stabilityLevel: 'ALPHA',
    name: `apiserver_${kind}_config_controller_last_config_info`,
    help: `Information about the last applied ${kind} configuration with hash as label, split by apiserver identity.`,
    labelNames: ['apiserver_id_hash', 'hash'],
  });
  return {
    reload(status: 'success' | 'failure', nowMs: number = Date.now()): void {
      reloads.inc({ status, apiserver_id_hash: APISERVER_ID_HASH });
      lastReload.set({ status, apiserver_id_hash: APISERVER_ID_HASH }, nowMs / 1000);
    },
    /** Marks the configuration in force (one series, labelled with the hash of the file's bytes). */
    configInfo(data: string): void {
      lastConfigInfo.reset();
      lastConfigInfo.set({ apiserver_id_hash: APISERVER_ID_HASH, hash: `sha256:${createHash('sha256').update(data).digest('hex')}` }, 1);
    },
  };
}
