// The public API, called with the viewer's own credentials: the browser's client certificate,
// the proxy of `kubectl access ui`, or a bearer token typed into the page (kept in this tab).
const TOKEN_KEY = 'platform-authz-apiserver.token';

export const ACCESS = '/apis/access.platform.io/v1';
export const RBAC = '/apis/rbac.authorization.platform.io/v1';
export const AUTHZ = '/apis/authorization.platform.io/v1';
export const AUTHN = '/apis/authentication.platform.io/v1';
export const RBAC_GROUP = 'rbac.authorization.platform.io';

export const token = () => sessionStorage.getItem(TOKEN_KEY) || '';
export function setToken(value) {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
  discovered.clear();
}

/** A failed call, with the server's Status: 401 and 403 mean the viewer may not see the answer. */
export class ApiError extends Error {
  constructor(code, status, fallback) {
    super((status && status.message) || fallback || `the server answered ${code}`);
    this.code = code;
    this.reason = (status && status.reason) || '';
    this.notAllowed = code === 401 || code === 403;
  }
}

/** One call: JSON in and out (a string body is sent as YAML). */
export async function api(method, path, body) {
  const headers = { Accept: 'application/json' };
  const t = token();
  if (t) headers.Authorization = `Bearer ${t}`;
  let payload;
  if (typeof body === 'string') {
    headers['Content-Type'] = 'application/yaml';
    payload = body;
  } else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, { method, headers, body: payload, credentials: 'same-origin' });
  } catch (err) {
    throw new ApiError(0, undefined, `the server could not be reached (${err.message})`);
  }
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) throw new ApiError(res.status, json, text.trim().split('\n')[0]);
  return json;
}

/** A create-only question: the answer's status. */
export async function ask(path, kind, spec, namespace) {
  const answer = await api('POST', path, { apiVersion: 'access.platform.io/v1', kind, metadata: namespace ? { namespace } : {}, spec });
  return answer.status || {};
}

const discovered = new Map();

/** The resources a group version serves (undefined when it is not served), from discovery. */
export async function servedResources(groupVersion) {
  if (!discovered.has(groupVersion)) {
    discovered.set(
      groupVersion,
      api('GET', `/apis/${groupVersion}`).then(
        (list) => list.resources || [],
        (err) => {
          if (err.code === 404) return undefined;
          discovered.delete(groupVersion);
          throw err;
        },
      ),
    );
  }
  return discovered.get(groupVersion);
}

/** Who the server takes the viewer for. */
export async function whoami() {
  const review = await api('POST', `${AUTHN}/selfsubjectreviews`, { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' });
  return (review.status && review.status.userInfo) || {};
}
