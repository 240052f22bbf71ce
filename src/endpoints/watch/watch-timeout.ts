/**
 * How long a watch runs, in seconds, as kube's watch handler decides it: the client's
 * `timeoutSeconds` when it gave one other than 0 (a negative one ends the watch at once);
 * otherwise a random time between `--min-request-timeout` and twice it, so that watches opened
 * together do not all end, and come back, together. With a minimum of 0 such a watch runs
 * until the client or the server ends it (undefined).
 */
export function watchTimeoutSeconds(requested: number | undefined, minRequestTimeoutSeconds: number, random: () => number = Math.random): number | undefined {
  if (requested !== undefined && requested !== 0) return requested;
  if (minRequestTimeoutSeconds <= 0) return undefined;
  return minRequestTimeoutSeconds * (random() + 1);
}
