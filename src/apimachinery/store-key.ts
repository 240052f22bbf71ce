/**
 * Where the store keeps an object: its kind as `<group>/<plural>` (the core group is empty,
 * so namespaces are `/namespaces`), its namespace ('' for cluster-scoped objects) and its
 * name. Every reader and writer computes keys with the functions below, so none can
 * disagree about where an object lives.
 */
export interface ObjectKey {
  resource: string;
  namespace: string;
  name: string;
}

/** The store's name for a kind's objects: `<group>/<plural>`. */
export function storageResource<G extends string, P extends string>(kind: { group: G; plural: P }): `${G}/${P}` {
  return `${kind.group}/${kind.plural}`;
}

/** The key of one object; objects of a cluster-scoped kind have no namespace, whatever the path said. */
export function objectKey(kind: { group: string; plural: string; namespaced: boolean }, namespace: string, name: string): ObjectKey {
  return { resource: storageResource(kind), namespace: kind.namespaced ? namespace : '', name };
}
