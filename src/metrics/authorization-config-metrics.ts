import { createHash } from 'node:crypto';
import { Counter, Gauge } from 'prom-client';
import { APISERVER_ID_HASH } from './apiserver-identity';
import { metricsRegistry } from './registry';

/** kube's authorization-configuration controller metrics (apiserver/pkg/server/options/authorizationconfig/metrics). */

const reloads = new Counter({
  name: 'apiserver_authorization_config_controller_automatic_reloads_total',
  help: 'Total number of automatic reloads of authorization configuration split by status and apiserver identity.',
  labelNames: ['status', 'apiserver_id_hash'],
  registers: [metricsRegistry],
});

const lastReload = new Gauge({
  name: 'apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds',
  help: 'Timestamp of the last automatic reload of authorization configuration split by status and apiserver identity.',
  labelNames: ['status', 'apiserver_id_hash'],
  registers: [metricsRegistry],
});

const lastConfigInfo = new Gauge({
  name: 'apiserver_authorization_config_controller_last_config_info',
  help: 'Information about the last applied authorization configuration with hash as label, split by apiserver identity.',
  labelNames: ['apiserver_id_hash', 'hash'],
  registers: [metricsRegistry],
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
