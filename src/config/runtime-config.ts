/**
 * `--runtime-config`: which API versions (and resources) are served, as kube-apiserver reads
 * it. Comma-separated `<key>[=<value>]` (no value = true), keys `api/all`, `api/ga`,
 * `api/beta`, `api/alpha`, `v1` (the core group), `<group>/<version>` and
 * `<group>/<version>/<resource>`; values Go's strconv.ParseBool. Whether a group version or
 * resource a key names exists is checked once the served kinds are registered.
 */

/** The level switches, in the order they apply (all, then one level). */
export const LEVEL_KEYS = ['api/all', 'api/ga', 'api/beta', 'api/alpha'] as const;
export type LevelKey = (typeof LEVEL_KEYS)[number];

/** One `<group>/<version>[/<resource>]` entry. */
export interface VersionSetting {
  /** The key as given, for messages. */
  key: string;
  group: string;
  version: string;
  /** Set for `<group>/<version>/<resource>` keys. */
  resource?: string;
  enabled: boolean;
}

export interface RuntimeConfig {
  levels: Partial<Record<LevelKey, boolean>>;
  versions: VersionSetting[];
}

export const EMPTY_RUNTIME_CONFIG: RuntimeConfig = { levels: {}, versions: [] };

/** Go's strconv.ParseBool. */
function parseBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(value)) return false;
  return undefined;
}

const VERSION = /^v\d+((alpha|beta)\d+)?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Parses the flag's value; throws an Error whose message names the bad key or value. */
export function parseRuntimeConfig(text: string, into: RuntimeConfig = { levels: {}, versions: [] }): RuntimeConfig {
  for (const item of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = item.indexOf('=');
    const key = (eq < 0 ? item : item.slice(0, eq)).trim();
    const raw = eq < 0 ? '' : item.slice(eq + 1).trim();
    const enabled = raw === '' ? true : parseBool(raw);
    if (enabled === undefined) throw new Error(`invalid value of ${key}: ${raw}, err: strconv.ParseBool: parsing ${JSON.stringify(raw)}: invalid syntax`);
    if ((LEVEL_KEYS as readonly string[]).includes(key)) {
      into.levels[key as LevelKey] = enabled;
      continue;
    }
    const parts = key.split('/');
    // The core group version is `v1` (kube also reads `api/v1`, and `api/v1/<resource>`).
    const [group, version, resource] = parts.length === 1 ? ['', parts[0]] : parts[0] === 'api' && parts.length <= 3 ? ['', parts[1], parts[2]] : parts;
    const wellFormed =
      key !== '' && parts.length <= 3 && VERSION.test(version ?? '') && (group === '' || DNS_SUBDOMAIN.test(group)) && (resource === undefined || /^[a-z0-9][-a-z0-9]*$/.test(resource));
    if (!wellFormed) throw new Error(`invalid key ${key}`);
    into.versions.push({ key, group, version, ...(resource !== undefined ? { resource } : {}), enabled });
  }
  return into;
}
