import type { RequestInfo } from './request-info';

import type { RequestLabels } from '../../metrics/request-metrics';

/** kube's label value for anything outside the bounded sets. */
export const OTHER = 'other';

/** The verbs kube reports (its validRequestMethods); anything else is `other`. */
const REPORTED_VERBS = new Set(['APPLY', 'CONNECT', 'CREATE', 'DELETE', 'DELETECOLLECTION', 'GET', 'LIST', 'PATCH', 'POST', 'PROXY', 'PUT', 'UPDATE', 'WATCH']);

/** The request info verb as kube's installer names the action. */
const ACTION_VERBS: Record<string, string> = {
  get: 'GET',
  list: 'LIST',
  watch: 'WATCH',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETECOLLECTION',
};

/** Subresources some served kind has (a namespace's status and finalize). */
const SUBRESOURCES = new Set(['status', 'finalize']);

/** Non-resource paths the server answers whatever the caller's rights, kept as label values even when refused. */
const NON_RESOURCE_ROOTS = new Set(['/', '/api', '/apis', '/version', '/metrics', '/healthz', '/livez', '/readyz', '/openapi/v2', '/openapi/v3']);

export interface LabelInputs {
  info: RequestInfo | undefined;
  method: string;
  /** The raw path (query excluded), when request info could not be made. */
  path: string;
  contentType: string | undefined;
  dryRun: unknown;
  /** Whether the server serves the group/version/resource the request info names. */
  served: boolean;
  /** The response status code. */
  code: number;
}

/**
 * The labels of kube's request metrics for one request, from its request info, never from
 * raw path text the caller chose: a resource the server does not serve is `other`, as is a
 * non-resource path it does not answer, so a caller cannot create series at will.
 */
export function requestMetricLabels(input: LabelInputs): RequestLabels {
  const { info } = input;
  const labels: RequestLabels = {
    verb: reportedVerb(input),
    dry_run: dryRunLabel(input.dryRun),
    group: '',
    version: '',
    resource: '',
    subresource: '',
    scope: scopeOf(info),
    component: 'apiserver',
  };
  if (info?.isResourceRequest) {
    if (input.served) {
      labels.group = info.apiPrefix === 'api' ? '' : info.apiGroup;
      labels.version = info.apiVersion;
      labels.resource = info.resource;
      labels.subresource = info.subresource === '' || SUBRESOURCES.has(info.subresource) ? info.subresource : OTHER;
    } else {
      labels.resource = OTHER;
    }
  } else {
    // kube reports a non-resource path as the subresource; only paths the server answered
    // (a bounded set) or its well-known roots are kept.
    const path = info?.path ?? input.path;
    labels.subresource = input.code < 400 || NON_RESOURCE_ROOTS.has(path) ? path : OTHER;
  }
  return labels;
}

function reportedVerb({ info, method, contentType }: LabelInputs): string {
  let verb = info?.isResourceRequest ? (ACTION_VERBS[info.verb] ?? method.toUpperCase()) : method.toUpperCase();
  if (verb === 'PATCH' && contentType?.split(';')[0].trim() === 'application/apply-patch+yaml') verb = 'APPLY';
  return REPORTED_VERBS.has(verb) ? verb : OTHER;
}

/** kube's dry_run label: the sorted distinct values when all are valid (`All`), else `invalid`. */
function dryRunLabel(value: unknown): string {
  if (value === undefined) return '';
  const values = (Array.isArray(value) ? value : [value]).map(String);
  if (values.some((v) => v !== 'All')) return 'invalid';
  return [...new Set(values)].sort().join(',');
}

/** kube's CleanScope. */
function scopeOf(info: RequestInfo | undefined): string {
  if (!info) return '';
  if (info.name !== '' || (info.isResourceRequest && info.verb === 'create')) return 'resource';
  if (info.namespace !== '') return 'namespace';
  if (info.isResourceRequest) return 'cluster';
  return '';
}

/** kube's request kinds for the in-flight gauge: reads are readOnly, everything else mutating. */
export function requestKindOf(method: string, info: RequestInfo | undefined): 'readOnly' | 'mutating' {
  if (info?.isResourceRequest) return info.verb === 'get' || info.verb === 'list' || info.verb === 'watch' ? 'readOnly' : 'mutating';
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? 'readOnly' : 'mutating';
}
