import { comparePathElements, FieldPath, PathElement, pathElementsEqual } from './path-element';

interface ChildNode {
  pe: PathElement;
  set: FieldSet;
}

function search<T>(items: readonly T[], pe: PathElement, key: (item: T) => PathElement): { index: number; found: boolean } {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (comparePathElements(key(items[mid]), pe) < 0) lo = mid + 1;
    else hi = mid;
  }
  return { index: lo, found: lo < items.length && pathElementsEqual(key(items[lo]), pe) };
}

const self = (pe: PathElement) => pe;
const nodeKey = (n: ChildNode) => n.pe;

/**
 * A set of field paths, structured-merge-diff's fieldpath.Set: a tree whose nodes are path
 * elements. `members` are the paths ending here; `children` lead to deeper members (being
 * a child does not make a path a member). Both lists are kept sorted, so set operations
 * are merges of sorted lists and serialisation order is kube's.
 */
export class FieldSet {
  private memberList: PathElement[] = [];
  /**
   * Members appended out of order since the list was last sorted: sorted (and repeats
   * dropped) when next read. Inserting each in place was quadratic: the 60,000 keys of a
   * ConfigMap's data held the event loop for 300 ms.
   */
  private membersUnsorted = false;
  private children: ChildNode[] = [];

  private get members(): PathElement[] {
    if (this.membersUnsorted) {
      this.membersUnsorted = false;
      this.memberList = sortedUnique(this.memberList);
    }
    return this.memberList;
  }

  private set members(list: PathElement[]) {
    this.memberList = list;
    this.membersUnsorted = false;
  }

  static of(...paths: FieldPath[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds a path (not its parents). The empty path (the whole object) is never tracked. */
  insert(path: FieldPath): void {
    if (path.length === 0) return;
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) node = node.descend(path[i]);
    node.insertMember(path[path.length - 1]);
  }

  /** Adds a member element at this level. */
  insertMember(pe: PathElement): void {
    const list = this.memberList;
    const last = list[list.length - 1];
    if (last !== undefined && comparePathElements(last, pe) >= 0) {
      if (pathElementsEqual(last, pe)) return;
      this.membersUnsorted = true;
    }
    list.push(pe);
  }

  /** The child set under `pe`, created when missing. */
  descend(pe: PathElement): FieldSet {
    const last = this.children[this.children.length - 1];
    // Paths mostly come in order: a new last child needs no search.
    if (last === undefined || comparePathElements(last.pe, pe) < 0) {
      const set = new FieldSet();
      this.children.push({ pe, set });
      return set;
    }
    const at = search(this.children, pe, nodeKey);
    if (at.found) return this.children[at.index].set;
    const set = new FieldSet();
    this.children.splice(at.index, 0, { pe, set });
    return set;
  }

  hasMember(pe: PathElement): boolean {
    return search(this.members, pe, self).found;
  }

  /** The child set under `pe`, if any. */
  child(pe: PathElement): FieldSet | undefined {
    const at = search(this.children, pe, nodeKey);
    return at.found ? this.children[at.index].set : undefined;
  }

  /** The paths below `pe`, without `pe` (empty when none). */
  withPrefix(pe: PathElement): FieldSet {
    return this.child(pe) ?? new FieldSet();
  }

  has(path: FieldPath): boolean {
    if (path.length === 0) return false;
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && node; i++) node = node.child(path[i]);
    return !!node && node.hasMember(path[path.length - 1]);
  }

  get memberElements(): readonly PathElement[] {
    return this.members;
  }

  get childNodes(): readonly { readonly pe: PathElement; readonly set: FieldSet }[] {
    return this.children;
  }

  empty(): boolean {
    return this.members.length === 0 && this.children.every((c) => c.set.empty());
  }

  size(): number {
    return this.members.length + this.children.reduce((n, c) => n + c.set.size(), 0);
  }

  union(other: FieldSet): FieldSet {
    const out = new FieldSet();
    // Nothing to merge: a copy (a 60,000-member set is merged element by element otherwise).
    if (other.members.length === 0 && other.children.length === 0) {
      out.members = this.members.slice();
      out.children = this.children.slice();
      return out;
    }
    out.members = mergeSorted(this.members, other.members, self, (a) => a);
    out.children = mergeSorted(this.children, other.children, nodeKey, (a, b) => ({ pe: a.pe, set: a.set.union(b.set) }));
    return out;
  }

  /** Paths in both sets (members in both, recursively). */
  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.members = this.members.filter((pe) => other.hasMember(pe));
    for (const c of this.children) {
      const o = other.child(c.pe);
      if (!o) continue;
      const set = c.set.intersection(o);
      if (!set.empty()) out.children.push({ pe: c.pe, set });
    }
    return out;
  }

  /** Members of this set not in `other`; a parent member is not removed by a child of it, nor the reverse. */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.members = other.members.length ? this.members.filter((pe) => !other.hasMember(pe)) : this.members.slice();
    for (const c of this.children) {
      const o = other.child(c.pe);
      if (!o) {
        out.children.push(c);
        continue;
      }
      const set = c.set.difference(o);
      if (!set.empty()) out.children.push({ pe: c.pe, set });
    }
    return out;
  }

  /** Like difference, but a member of `other` also removes everything below it. */
  recursiveDifference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.members = other.members.length ? this.members.filter((pe) => !other.hasMember(pe)) : this.members.slice();
    for (const c of this.children) {
      if (other.hasMember(c.pe)) continue;
      const o = other.child(c.pe);
      if (!o) {
        out.children.push(c);
        continue;
      }
      const set = c.set.recursiveDifference(o);
      if (!set.empty()) out.children.push({ pe: c.pe, set });
    }
    return out;
  }

  equals(other: FieldSet): boolean {
    if (this.members.length !== other.members.length || this.children.length !== other.children.length) return false;
    if (!this.members.every((pe, i) => pathElementsEqual(pe, other.members[i]))) return false;
    return this.children.every((c, i) => pathElementsEqual(c.pe, other.children[i].pe) && c.set.equals(other.children[i].set));
  }

  /** Every member path, members of a level before its children (preorder), as kube iterates. */
  paths(): FieldPath[] {
    const out: FieldPath[] = [];
    const walk = (node: FieldSet, prefix: PathElement[]) => {
      for (const pe of node.members) out.push([...prefix, pe]);
      for (const c of node.children) walk(c.set, [...prefix, c.pe]);
    };
    walk(this, []);
    return out;
  }

  /** Puts `set` under `pe` (joined with what is already there). */
  attachChild(pe: PathElement, set: FieldSet): void {
    const at = search(this.children, pe, nodeKey);
    if (at.found) this.children[at.index] = { pe, set: this.children[at.index].set.union(set) };
    else this.children.splice(at.index, 0, { pe, set });
  }
}

/** The elements sorted, each once. */
function sortedUnique(list: PathElement[]): PathElement[] {
  const sorted = [...list].sort(comparePathElements);
  const out: PathElement[] = [];
  for (const pe of sorted) if (out.length === 0 || !pathElementsEqual(out[out.length - 1], pe)) out.push(pe);
  return out;
}

/** Merges two sorted lists; items present in both are combined by `both`. */
function mergeSorted<T>(a: readonly T[], b: readonly T[], key: (t: T) => PathElement, both: (x: T, y: T) => T): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = comparePathElements(key(a[i]), key(b[j]));
    if (c < 0) out.push(a[i++]);
    else if (c > 0) out.push(b[j++]);
    else out.push(both(a[i++], b[j++]));
  }
  while (i < a.length) out.push(a[i++]);
  while (j < b.length) out.push(b[j++]);
  return out;
}
