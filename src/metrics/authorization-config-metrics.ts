import { createHash } from 'node:crypto';
import { APISERVER_ID_HASH } from './apiserver-identity';
import { metricsCatalog } from './registry';

/** kube's authorization-configuration controller metrics (apiserver/pkg/server/options/authorizationconfig/metrics). */

const reloads = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_authorization_config_controller_automatic_reloads_total',
  help: 'Total number of automatic reloads of authorization configuration split by status and apiserver identity.',
  labelNames: ['status', 'apiserver_id_hash'],
});

const lastReload = metricsCatalog.gauge({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds',
  help: 'Timestamp of the last automatic reload of authorization configuration split by status and apiserver identity.',
  labelNames: ['status', 'apiserver_id_hash'],
});

const lastConfigInfo = metricsCatalog.gauge({
  stabilityLevel: 'ALPHA',
  name: 'apiserver_authorization_config_controller_last_config_info',
  help: 'Information about the last applied authorization configuration with hash as label, split by apiserver identity.',
  labelNames: ['apiserver_id_hash', 'hash'],
});

export function recordAuthorizationConfigReload(status: 'success' | 'failure', nowMs: number = Date.now()): void {
  reloads.inc({ status, apiserver_id_hash: APISERVER_ID_HASH });
  lastReload.set({ status, apiserver_id_hash: APISERVER_ID_HASH }, nowMs / 1000);
}

/** Marks the configuration in force (one series, labelled with the hash of the file's bytes). */
export function recordAuthorizationConfigInfo(data: string): void {
  lastConfigInfo.reset();
  lastConfigInfo.set({ apiserver_id_hash: APISERVER_ID_HASH, hash: `sha256:${createHash('sha256').update(data).digest('hex')}` }, 1);
}
