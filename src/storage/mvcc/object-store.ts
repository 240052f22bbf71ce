import type { ObjectKey } from '../../apimachinery/store-key';
import { KubeObject } from '../../apimachinery/types';

/**
 * The store the generic resource layer talks to: an MVCC log in the spirit of etcd.
 *
 * Revisions are one global, strictly increasing counter; each write gets the next
 * revision and its row becomes the newest row of its key. Revisions travel as decimal
 * strings (they are int8 in PostgreSQL and may pass 2^53 in theory).
 */

export type { ObjectKey } from '../../apimachinery/store-key';

export interface StoredObject {
  key: ObjectKey;
  /** The revision of the write that produced this state = metadata.resourceVersion. */
  revision: string;
  /** The object with metadata.resourceVersion set to `revision`. */
  object: KubeObject;
}

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One row of the log: the basis for watch. For DELETED, `object` is the last state. */
export interface Change {
  type: ChangeType;
  key: ObjectKey;
  revision: string;
  object: KubeObject;
  /** The state before this change (absent for ADDED). */
  previous?: KubeObject;
  /** The size of `object` and `previous` as JSON text: roughly what holding the change costs. */
  bytes: number;
  /** Who made the change, as the write named it (absent: not recorded). */
  author?: ChangeAuthor;
  /** When it committed, in ms since the epoch (absent where the store does not say). */
  committedAt?: number;
}

/** The user a write was made for, kept with its row in the log (access history names it). */
export interface ChangeAuthor {
  username: string;
  groups?: string[];
}

/** What a write records beside the object: who made it. */
export interface WriteContext {
  author?: ChangeAuthor;
  /**
   * JSON.stringify of the object written, when the writer made it already (a large object is
   * encoded a slice at a time, so the store's stringify does not hold the event loop).
   */
  json?: string;
}

/** The range of a store list (the store's own query, not kube's ListOptions). */
export interface StoreRangeOptions {
  /** Restrict to one namespace; unset = all namespaces. */
  namespace?: string;
  /** Read the state as of this revision (from the log); unset = current state. */
  atRevision?: string;
  /** Start after this key (exclusive), ordered by (namespace, name). */
  after?: { namespace: string; name: string };
  /** At most this many items; unset = all. */
  limit?: number;
  /**
   * Without atRevision: any state at least this new will do (kube's NotOlderThan, '0' for
   * any), so a cache may answer from what it holds at once; unset = the newest state.
   */
  notOlderThan?: string;
  /**
   * false: `remaining` is not counted (an informer walking every page needs only hasMore; a
   * count of the rest on each page made its walk quadratic). Default true.
   */
  countRemaining?: boolean;
  /**
   * The caller knows atRevision was not compacted when its list began (the pages after the
   * first of one list): a cache answering from memory need not read the compaction mark again.
   */
  notCompacted?: boolean;
}

/** How fresh a get must be (see StoreRangeOptions.notOlderThan). */
export interface StoreGetOptions {
  notOlderThan?: string;
}

export interface ListResult {
  items: StoredObject[];
  /** The revision this list reflects (the snapshot revision). */
  revision: string;
  /** More items follow the last one returned. */
  hasMore: boolean;
  /** How many items follow the last one returned (only when hasMore, and counted). */
  remaining?: number;
}

export interface WritePreconditions {
  /** The write fails with StaleRevisionError unless the key's newest revision equals this. */
  revision?: string;
  /** The write fails with UidMismatchError unless the stored uid equals this. */
  uid?: string;
  /**
   * The object as the writer read it at `revision` (with that resourceVersion; never changed by
   * anyone). When the precondition holds it is the state the write replaces, so the store hands
   * it on as the change's previous state instead of reading and parsing the stored one again
   * (a Role of 30,000 rules: 35 ms of parsing on the event loop). Ignored without `revision`.
   */
  previous?: KubeObject;
}

/** Thrown when a precondition on revision fails (optimistic concurrency). */
export class StaleRevisionError extends Error {
  constructor(readonly key: ObjectKey, readonly expected: string, readonly actual: string) {
    super(`revision mismatch for ${key.resource} ${key.namespace}/${key.name}: expected ${expected}, have ${actual}`);
  }
}

export class UidMismatchError extends Error {
  constructor(readonly key: ObjectKey, readonly expected: string, readonly actual: string) {
    super(`uid mismatch for ${key.resource} ${key.namespace}/${key.name}: expected ${expected}, have ${actual}`);
  }
}

export class KeyExistsError extends Error {
  constructor(readonly key: ObjectKey) {
    super(`key exists: ${key.resource} ${key.namespace}/${key.name}`);
  }
}

export class KeyNotFoundError extends Error {
  constructor(readonly key: ObjectKey) {
    super(`key not found: ${key.resource} ${key.namespace}/${key.name}`);
  }
}

/** A requested revision is older than the compacted history. */
export class RevisionCompactedError extends Error {
  constructor(readonly requested: string, readonly compacted: string) {
    super(`revision ${requested} has been compacted (oldest kept: ${compacted})`);
  }
}

/**
 * Key parts live in text columns, and PostgreSQL text cannot hold NUL: a name or namespace
 * with one can be neither stored nor found. Writers refuse such keys before they reach the
 * store (the generic storage validates them with the object); readers find nothing.
 */
export function isStorableKeyPart(value: string): boolean {
  return !value.includes('\u0000');
}

export function isStorableKey(key: Pick<ObjectKey, 'namespace' | 'name'>): boolean {
  return isStorableKeyPart(key.namespace) && isStorableKeyPart(key.name);
}

/** A write reached the store with a key it cannot hold (see isStorableKey). */
export class UnstorableKeyError extends Error {
  constructor(readonly key: ObjectKey) {
    super(`key cannot be stored (NUL character): ${JSON.stringify(key)}`);
  }
}

/**
 * Hears the writes this process commits, as they commit: the change feed takes its own
 * writes from here instead of reading them back from the log. Called in that order for a
 * write that got a revision: `committing` inside its transaction, then `committed` with the
 * change, or `abandoned` when the write failed (it may or may not have committed then).
 */
export interface LocalCommitListener {
  committing(revision: string): void;
  committed(change: Change): void;
  abandoned(revision: string): void;
}

export interface ObjectStore {
  /** The newest committed revision. */
  currentRevision(): Promise<string>;
  /** The oldest revision still answerable exactly (everything older is compacted). */
  compactedRevision(): Promise<string>;

  get(key: ObjectKey, atRevision?: string, opts?: StoreGetOptions): Promise<StoredObject | null>;
  list(resource: string, opts?: StoreRangeOptions): Promise<ListResult>;

  /** Inserts a new key; KeyExistsError if it exists. */
  create(key: ObjectKey, object: KubeObject, ctx?: WriteContext): Promise<StoredObject>;
  /**
   * Inserts the keys of one resource that do not exist yet, in one statement (optional: a
   * store without it is written one create at a time), each with a revision of its own in
   * the given order; a key that exists is left as it is. Answers what was stored, in order.
   * The keys must differ from each other.
   */
  createMissing?(resource: string, items: ReadonlyArray<{ namespace: string; name: string; object: KubeObject }>, ctx?: WriteContext): Promise<StoredObject[]>;
  /** Replaces the newest state; KeyNotFoundError, StaleRevisionError, UidMismatchError. */
  update(key: ObjectKey, object: KubeObject, pre?: WritePreconditions, ctx?: WriteContext): Promise<StoredObject>;
  /** Removes the key (a tombstone row in the log); returns the last state with the delete's revision. */
  delete(key: ObjectKey, pre?: WritePreconditions, ctx?: WriteContext): Promise<StoredObject>;

  /**
   * Changes with revision > `afterRevision`, oldest first, at most `limit`, and no more
   * after their objects (as JSON text, previous states not counted) reach `maxBytes`; the
   * first change always comes. RevisionCompactedError if gone.
   */
  changesSince(afterRevision: string, limit: number, maxBytes?: number): Promise<Change[]>;

  /** Drops superseded rows older than the history window; never a key's newest row. */
  compact(olderThanMs: number): Promise<{ removedRows: number; compactedRevision: string }>;

  /**
   * Tells `listener` about every write committed through this store object (optional: a
   * store without it is only followed through its log). The change handed over and the
   * object a write returns are the same: neither may be changed by anyone. Returns the removal.
   */
  addCommitListener?(listener: LocalCommitListener): () => void;
}

export const OBJECT_STORE = Symbol('OBJECT_STORE');

/**
 * The store the API's storages read and write through: the OBJECT_STORE with reads answered
 * from memory (the caching store) unless --watch-cache=false. Informers, the change feed and
 * compaction use the OBJECT_STORE itself.
 */
export const SERVING_STORE = Symbol('SERVING_STORE');
