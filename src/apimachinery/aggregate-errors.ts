/**
 * Several error messages as one, the way kube's utilerrors aggregate prints them: one
 * message alone as is, several distinct ones as `[a, b]` (duplicates dropped).
 */
export function aggregateErrors(messages: readonly string[]): string {
  const distinct = [...new Set(messages)];
  if (distinct.length <= 1) return distinct[0] ?? '';
  return `[${distinct.join(', ')}]`;
}
