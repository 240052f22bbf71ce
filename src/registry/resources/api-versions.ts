import { compareReleases, CURRENT_RELEASE, parseRelease, Release, releaseText } from '../../apimachinery/release';
import { RuntimeConfig, VersionSetting } from '../../config/runtime-config';

/** kube's API version stability levels, read from the version's name. */
export type ApiStability = 'alpha' | 'beta' | 'stable';

export function stabilityOfVersion(version: string): ApiStability {
  if (/^v\d+alpha\d+$/.test(version)) return 'alpha';
  if (/^v\d+beta\d+$/.test(version)) return 'beta';
  return 'stable';
}

/** Beta versions introduced from this release on are off unless `--runtime-config` enables them. */
export const BETA_OFF_BY_DEFAULT_SINCE: Release = { major: 1, minor: 22 };

/**
 * What a served group version declares about its lifecycle. Every group version a feature
 * module registers kinds in is declared (a stable one without deprecation may rely on the
 * default declaration its name gives); kinds of an undeclared alpha or beta version are refused.
 */
export interface GroupVersionDeclaration {
  group: string;
  version: string;
  /** The release that introduced the version (`1.20`); beta versions need it for their default. */
  introduced?: string;
  deprecation?: {
    /** The release that deprecated the version (`1.29`). */
    deprecatedIn: string;
    /** The release from which it is not served (`1.32`); unset: no removal planned. */
    removedIn?: string;
    /** The apiVersion to use instead (`rbac.authorization.platform.io/v1`); the kind stays the same. */
    replacement?: string;
  };
}

/** A group version's lifecycle as the generic layer reads it. */
export interface GroupVersionLifecycle {
  stability: ApiStability;
  introduced?: Release;
  deprecated?: Release;
  removed?: Release;
  replacement?: string;
}

export function lifecycleOf(declaration: GroupVersionDeclaration): GroupVersionLifecycle {
  const release = (field: string, text: string | undefined): Release | undefined => {
    if (text === undefined) return undefined;
    const parsed = parseRelease(text);
    if (!parsed) throw new Error(`${declaration.group}/${declaration.version}: ${field} ${JSON.stringify(text)} is not a release such as 1.30`);
    return parsed;
  };
  const lifecycle: GroupVersionLifecycle = {
    stability: stabilityOfVersion(declaration.version),
    introduced: release('introduced', declaration.introduced),
    deprecated: release('deprecatedIn', declaration.deprecation?.deprecatedIn),
    removed: release('removedIn', declaration.deprecation?.removedIn),
    replacement: declaration.deprecation?.replacement,
  };
  if (lifecycle.stability === 'beta' && !lifecycle.introduced) {
    throw new Error(`${declaration.group}/${declaration.version}: a beta version declares the release that introduced it`);
  }
  return lifecycle;
}

/**
 * Whether a version is served when `--runtime-config` does not mention it (the deprecation
 * policy): stable on, alpha off, beta on only if introduced before 1.22, and nothing the
 * current release has removed.
 */
export function servedByDefault(lifecycle: GroupVersionLifecycle, current: Release = CURRENT_RELEASE): boolean {
  if (lifecycle.removed && compareReleases(current, lifecycle.removed) >= 0) return false;
  switch (lifecycle.stability) {
    case 'stable':
      return true;
    case 'alpha':
      return false;
    case 'beta':
      return compareReleases(lifecycle.introduced!, BETA_OFF_BY_DEFAULT_SINCE) < 0;
  }
}

/**
 * Applies `--runtime-config` to one version (and optionally one of its resources), in kube's
 * order: the default, `api/all`, the level switch, `<group>/<version>`, then the resource key.
 */
export function servedWith(config: RuntimeConfig, group: string, version: string, lifecycle: GroupVersionLifecycle, resource?: string): boolean {
  let served = servedByDefault(lifecycle);
  const levelKey = lifecycle.stability === 'stable' ? 'api/ga' : lifecycle.stability === 'beta' ? 'api/beta' : 'api/alpha';
  if (config.levels['api/all'] !== undefined) served = config.levels['api/all'];
  if (config.levels[levelKey] !== undefined) served = config.levels[levelKey]!;
  const matches = (s: VersionSetting) => s.group === group && s.version === version;
  for (const s of config.versions) if (matches(s) && s.resource === undefined) served = s.enabled;
  if (resource !== undefined) for (const s of config.versions) if (matches(s) && s.resource === resource) served = s.enabled;
  return served;
}

/**
 * kube's deprecation warning for a kind served in a deprecated version:
 * `<group>/<version> <Kind> is deprecated in v1.X+, unavailable in v1.Y+; use <replacement> <Kind>`.
 */
export function deprecationWarning(apiVersion: string, kind: string, lifecycle: GroupVersionLifecycle): string | undefined {
  if (!deprecatedAt(lifecycle)) return undefined;
  let text = `${apiVersion} ${kind} is deprecated in v${releaseText(lifecycle.deprecated!)}+`;
  if (lifecycle.removed) text += `, unavailable in v${releaseText(lifecycle.removed)}+`;
  if (lifecycle.replacement) text += `; use ${lifecycle.replacement} ${kind}`;
  return text;
}

/** Whether the version is deprecated at a release (from the release that deprecated it on). */
export function deprecatedAt(lifecycle: GroupVersionLifecycle, current: Release = CURRENT_RELEASE): boolean {
  return !!lifecycle.deprecated && compareReleases(current, lifecycle.deprecated) >= 0;
}
