import { ALL_AUTHENTICATED } from '../../apimachinery/user-info';

/**
 * kube's ABAC policy file: one JSON object per line (so files concatenate and errors have
 * line numbers); blank lines and lines starting with `#` are skipped. A line is a
 * `Policy` of `abac.authorization.platform.io/v1beta1` (fields under `spec`), or of the
 * legacy `v0` format (fields at the top level), which is what a line without apiVersion
 * and kind is read as. Both convert to one internal policy, as kube's conversions do.
 */

export const ABAC_GROUP = 'abac.authorization.platform.io';
export const ABAC_V1BETA1 = `${ABAC_GROUP}/v1beta1`;
export const ABAC_V0 = `${ABAC_GROUP}/v0`;
const POLICY_KIND = 'Policy';

/** The internal policy: what the authorizer matches. */
export interface AbacPolicy {
  /** A user name, `*` (any), or empty (not restricted by user). */
  user: string;
  /** A group name, `*` (any), or empty (not restricted by group). */
  group: string;
  /** Only get, list and watch. */
  readonly: boolean;
  /** API group, `*` for all; the core group is the empty string. */
  apiGroup: string;
  /** Resource, `*` for all. */
  resource: string;
  /** Namespace, `*` for all; cluster-scoped requests have the empty namespace. */
  namespace: string;
  /** Non-resource path: exact, `*` for all, or a prefix ending in `*`. */
  nonResourcePath: string;
}

/** A policy file could not be read: the file, the line (1-based) and the cause, as kube words it. */
export class PolicyLoadError extends Error {
  constructor(
    readonly path: string,
    readonly line: number | undefined,
    readonly text: string,
    readonly reason: string,
  ) {
    super(line !== undefined ? `error reading policy file ${path}, line ${line}: ${text}: ${reason}` : `error reading policy file ${path}: ${reason}`);
  }
}

/** A line that does not decode, with kube's (or JSON's) reason. */
class LineError extends Error {}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Go's decoding: absent or null is the zero value; any other type is an error. */
function stringField(obj: Record<string, unknown>, field: string, path: string): string {
  const v = obj[field];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new LineError(`${path}${field}: expected a string, got ${describeType(v)}`);
  return v;
}

function boolField(obj: Record<string, unknown>, field: string, path: string): boolean {
  const v = obj[field];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw new LineError(`${path}${field}: expected a boolean, got ${describeType(v)}`);
  return v;
}

function describeType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

/** kube's v1beta1 conversion: `*` as user or group means every authenticated caller. */
function fromV1beta1(obj: Record<string, unknown>): AbacPolicy {
  const spec = obj.spec ?? {};
  if (!isPlainObject(spec)) throw new LineError(`spec: expected an object, got ${describeType(spec)}`);
  const policy: AbacPolicy = {
    user: stringField(spec, 'user', 'spec.'),
    group: stringField(spec, 'group', 'spec.'),
    readonly: boolField(spec, 'readonly', 'spec.'),
    apiGroup: stringField(spec, 'apiGroup', 'spec.'),
    resource: stringField(spec, 'resource', 'spec.'),
    namespace: stringField(spec, 'namespace', 'spec.'),
    nonResourcePath: stringField(spec, 'nonResourcePath', 'spec.'),
  };
  if (policy.user === '*' || policy.group === '*') {
    policy.group = ALL_AUTHENTICATED;
    policy.user = '';
  }
  return policy;
}

/**
 * kube's v0 conversion: no user and group (or `*`) means every authenticated caller; an
 * empty namespace or resource means all; every API group; and a policy with neither
 * namespace nor resource also allows every non-resource path.
 */
function fromV0(obj: Record<string, unknown>): AbacPolicy {
  const user = stringField(obj, 'user', '');
  const group = stringField(obj, 'group', '');
  const namespace = stringField(obj, 'namespace', '');
  const resource = stringField(obj, 'resource', '');
  const policy: AbacPolicy = {
    user,
    group,
    readonly: boolField(obj, 'readonly', ''),
    apiGroup: '*',
    resource: resource || '*',
    namespace: namespace || '*',
    nonResourcePath: !namespace && !resource ? '*' : '',
  };
  if (!user && !group) policy.group = ALL_AUTHENTICATED;
  if (user === '*' || group === '*') {
    policy.group = ALL_AUTHENTICATED;
    policy.user = '';
  }
  return policy;
}

/**
 * Decodes one line. The version is chosen as kube's decoder does: no apiVersion means the
 * legacy v0 (and no kind means Policy, except for v1beta1, which needs its kind).
 */
export function parsePolicyLine(line: string): { policy: AbacPolicy; unversioned: boolean } {
  let obj: unknown;
  try {
    obj = JSON.parse(line);
  } catch (err) {
    throw new LineError(`invalid JSON: ${(err as Error).message}`);
  }
  if (!isPlainObject(obj)) throw new LineError(`a policy must be a JSON object, got ${obj === null ? 'null' : describeType(obj)}`);
  const apiVersion = stringField(obj, 'apiVersion', '');
  const kind = stringField(obj, 'kind', '');
  if (apiVersion === ABAC_V1BETA1 && kind === POLICY_KIND) return { policy: fromV1beta1(obj), unversioned: false };
  if (apiVersion === ABAC_V1BETA1 && !kind) throw new LineError(`Object 'Kind' is missing in '${line.trim()}'`);
  const version = apiVersion || ABAC_V0;
  const effectiveKind = kind || POLICY_KIND;
  if (version === ABAC_V0 && effectiveKind === POLICY_KIND) return { policy: fromV0(obj), unversioned: !apiVersion || !kind };
  throw new LineError(`no kind "${effectiveKind}" is registered for version "${version}"`);
}

/** Parses a whole file's text; `path` only names it in errors. */
export function parsePolicyFile(text: string, path: string): { policies: AbacPolicy[]; unversionedLines: number } {
  const policies: AbacPolicy[] = [];
  let unversionedLines = 0;
  const lines = text.split('\n');
  // A final newline does not start another line.
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  lines.forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#')) return;
    try {
      const { policy, unversioned } = parsePolicyLine(line);
      policies.push(policy);
      if (unversioned) unversionedLines++;
    } catch (err) {
      if (err instanceof LineError) throw new PolicyLoadError(path, i + 1, line, err.message);
      throw err;
    }
  });
  return { policies, unversionedLines };
}
