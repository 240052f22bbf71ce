import type { RequestInfo } from './request-info';

/** Verbs kube-apiserver serves as long-running requests (its LongRunningFunc). */
const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
/** Subresources kube-apiserver serves as long-running requests. */
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);
/** kube's profiler endpoints stream for as long as a profile is taken. */
const PROFILER_PATH = /^\/debug\/pprof\//;

/**
 * kube's BasicLongRunningRequestCheck as kube-apiserver configures it: watches, proxies, and
 * the streaming subresources. They hold no in-flight slot, have no request timeout and are not
 * waited for when the server drains.
 */
export function isLongRunning(info: RequestInfo | undefined): boolean {
  if (!info) return false;
  if (LONG_RUNNING_VERBS.has(info.verb)) return true;
  if (info.isResourceRequest) return LONG_RUNNING_SUBRESOURCES.has(info.subresource);
  return PROFILER_PATH.test(info.path);
}

const PROBE_PATH = /^\/(healthz|livez|readyz)(\/|$)/;

/** The health probes (and their single checks): load balancers and kubelets ask them, whatever the load. */
export function isHealthProbe(info: RequestInfo | undefined): boolean {
  return !!info && !info.isResourceRequest && PROBE_PATH.test(info.path);
}
