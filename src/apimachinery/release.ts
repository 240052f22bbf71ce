/**
 * The Kubernetes minor release whose API this server follows. Deprecation texts, the
 * metric lifecycle and the default enablement of beta API versions compare against it.
 */
export const CURRENT_RELEASE: Release = { major: 1, minor: 32 };

/** A minor release, `1.32`. */
export interface Release {
  major: number;
  minor: number;
}

/** `1.32` (or `v1.32`, `1.32.0`) as a Release; undefined for anything else. */
export function parseRelease(text: string): Release | undefined {
  const m = /^v?(\d+)\.(\d+)(?:\.\d+)?$/.exec(text);
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
}

export function releaseText(release: Release): string {
  return `${release.major}.${release.minor}`;
}

/** Negative when a is older than b. */
export function compareReleases(a: Release, b: Release): number {
  return a.major - b.major || a.minor - b.minor;
}
