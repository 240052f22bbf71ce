import { parseFieldSelector } from '../../apimachinery/selectors/field-selector';
import { SelectorParseError } from '../../apimachinery/selectors/label-selector';
import { isValidPathSegmentName } from '../../apimachinery/validation/names';
import { firstQueryValue, queryBool } from '../../registry/options/query-parameters';

/**
 * Turns a request path and method into the attributes kube's RequestInfoFactory
 * produces: resource requests under /api/v1 and /apis/{group}/{version}, everything
 * else a non-resource request whose verb is the lowercase HTTP method.
 */
export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: string;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** Path segments after group/version (after namespaces/{ns} when that is a scope). */
  parts: string[];
  /**
   * Set when the path named an alias of a served group/version (see the registry's
   * aliases): the apiVersion it named, which bodies speak. apiGroup and apiVersion then
   * name the served group/version, which authorizers and handlers see.
   */
  aliasApiVersion?: string;
}

const methodVerbs: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

/** Subresources of a namespace object itself (`/api/v1/namespaces/{ns}/status`). */
const namespaceSubresources = new Set(['status', 'finalize']);


/**
 * `metadata.name=x` (or `==`) in a field selector names the object for authorization, as
 * kube's RequestInfoFactory does: only when the whole selector parses and the name is a
 * valid path segment; otherwise the request stays unnamed (a named rule cannot grant it).
 */
export function nameFromFieldSelector(selector: string | undefined): string {
  if (!selector) return '';
  let name: string | undefined;
  try {
    name = parseFieldSelector(selector).exactValue('metadata.name');
  } catch (err) {
    if (err instanceof SelectorParseError) return '';
    throw err;
  }
  return name !== undefined && isValidPathSegmentName(name).length === 0 ? name : '';
}

/** The lowercase methods, made once: the non-resource verb of every request. */
const lowercaseMethods = new Map(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].map((m) => [m, m.toLowerCase()]));

export function resolveRequestInfo(method: string, rawPath: string, query: Record<string, unknown>): RequestInfo {
  const queryAt = rawPath.indexOf('?');
  const path = queryAt < 0 ? rawPath : rawPath.slice(0, queryAt);
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: lowercaseMethods.get(method) ?? method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  const segments = path.split('/').filter((s) => s.length > 0).map(safeDecode);
  if (segments.length === 0) return info;
  const prefix = segments[0];
  let rest: string[];
  if (prefix === 'api') {
    if (segments.length < 3) return info;
    info.apiVersion = segments[1];
    rest = segments.slice(2);
  } else if (prefix === 'apis') {
    if (segments.length < 4) return info;
    info.apiGroup = segments[1];
    info.apiVersion = segments[2];
    rest = segments.slice(3);
  } else {
    return info;
  }
  const verb = methodVerbs[lowercaseMethods.has(method) ? method : method.toUpperCase()];
  if (!verb) return info;
  info.isResourceRequest = true;
  info.apiPrefix = prefix;
  info.verb = verb;

  if (rest[0] === 'namespaces' && rest.length > 1) {
    info.namespace = rest[1];
    if (rest.length > 2 && !namespaceSubresources.has(rest[2])) rest = rest.slice(2);
  }
  info.parts = rest;
  if (rest.length >= 3) info.subresource = rest[2];
  if (rest.length >= 2) info.name = rest[1];
  if (rest.length >= 1) info.resource = rest[0];

  // A collection read is a watch when `watch` decodes true, by the rule of every boolean
  // option; a read of one object is a get whatever the query says, as in kube.
  if (!info.name && info.verb === 'get') {
    const watch = firstQueryValue(query, 'watch');
    info.verb = watch !== undefined && queryBool(watch) ? 'watch' : 'list';
    const selected = nameFromFieldSelector(firstQueryValue(query, 'fieldSelector'));
    if (selected) info.name = selected;
  }
  if (!info.name && info.verb === 'delete') info.verb = 'deletecollection';
  return info;
}

function safeDecode(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
