import { performance } from 'node:perf_hooks';

/**
 * The store's current revision as a consistent read needs it (kube's consistent reads from
 * the watch cache, KEP-2340: ask the store for its revision, then wait until the cache has
 * it): a revision that covers every write committed before the caller arrived.
 *
 * A read of the revision that started after the caller arrived covers it, so one read serves
 * every caller that arrived before it started: a caller takes the newest read if it began
 * after the caller's arrival, else the next one, which starts when the current one ends. At
 * most one read is under way and one waits, however many callers there are.
 *
 * When this process is the store's only writer (the embedded engine, behind its lock file),
 * no read is needed: the newest revision this process committed is the store's.
 */
export class CurrentRevision {
  /** The newest read begun, with when it began (performance.now()). */
  private current: { startedAt: number; revision: Promise<bigint> } | null = null;
  /** The read that starts when the current one ends, shared by the callers it must serve. */
  private next: Promise<bigint> | null = null;

  constructor(
    private readonly readRevision: () => Promise<string>,
    private readonly committedBySoleWriter?: () => bigint,
  ) {}

  /**
   * A revision covering every write committed before `arrivedAt` (performance.now() of the
   * caller's arrival; now, when not given). Resolves at once for the sole writer.
   */
  since(arrivedAt: number = performance.now()): bigint | Promise<bigint> {
    if (this.committedBySoleWriter) return this.committedBySoleWriter();
    const current = this.current;
    if (current && current.startedAt >= arrivedAt) return current.revision;
    if (!current) return this.begin();
    this.next ??= current.revision.then(
      () => this.begin(),
      () => this.begin(),
    );
    return this.next;
  }

  private begin(): Promise<bigint> {
    this.next = null;
    const startedAt = performance.now();
    const revision = this.readRevision().then(BigInt);
    const read = { startedAt, revision };
    this.current = read;
    // A failed read is not reused: the next caller reads again.
    revision.catch(() => {
      if (this.current === read) this.current = null;
    });
    return revision;
  }
}

/**
 * How long a read of the revision for a decision may take. A store that has not answered by
 * then is treated as unreachable (ETIMEDOUT, a `timeout`): decisions go on from memory instead
 * of waiting out a failover (a pooler queues statements while no primary is there; a proxy
 * retries its connections), since nothing new can be acknowledged meanwhile either.
 */
export const REVISION_READ_TIMEOUT_MS = 1000;

/** `read()`, failed with ETIMEDOUT once it has taken `ms`. */
export function revisionReadWithin(read: () => Promise<string>, ms = REVISION_READ_TIMEOUT_MS): () => Promise<string> {
  return () => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(`the store revision was not read within ${ms} ms`), { code: 'ETIMEDOUT' })), ms);
    });
    return Promise.race([read(), late]).finally(() => clearTimeout(timer));
  };
}
