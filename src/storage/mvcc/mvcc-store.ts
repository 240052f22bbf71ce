import { DataSource } from 'typeorm';
import { KubeObject } from '../../apimachinery/types';
import { CHANGES_CHANNEL } from '../engine/change-notifier';
import { buildListQuery } from './list-query';
import {
  Change,
  ChangeType,
  KeyExistsError,
  KeyNotFoundError,
  StoreRangeOptions,
  LocalCommitListener,
  ListResult,
  ObjectKey,
  ObjectStore,
  isStorableKey,
  isStorableKeyPart,
  RevisionCompactedError,
  StaleRevisionError,
  StoredObject,
  UidMismatchError,
  UnstorableKeyError,
  WritePreconditions,
  WriteContext,
  ChangeAuthor,
} from './object-store';
import { fromColumn, toColumn } from './object-column';
import { dataSourceSession, SqlQuery, SqlSession } from '../engine/sql-session';
import { GroupCommit, RevisionedWrite } from './group-commit';
import type { Database } from '../engine/database';
import { storageFailureOf } from '../engine/storage-errors';
import type { StoreDiskSpace } from '../engine/store-disk-space';

type Op = 'create' | 'update' | 'delete';

const CHANGE_TYPES: Record<Op, ChangeType> = { create: 'ADDED', update: 'MODIFIED', delete: 'DELETED' };

/** A row as the queries below return it: revisions as text, objects parsed. */
interface ObjectRow {
  revision: string;
  object: KubeObject;
}

/** The object as clients see it: resourceVersion is the row's revision, never what was stored. */
function withRevision(column: unknown, revision: string): KubeObject {
  const object = fromColumn(column);
  object.metadata = { ...object.metadata, resourceVersion: revision };
  return object;
}

/** A written object as the store hands it out: a shallow copy with its revision (the writer's object is not changed). */
function asWritten(object: KubeObject, revision: string): KubeObject {
  return { ...object, metadata: { ...object.metadata, resourceVersion: revision } };
}

/** The row lockCurrent reads: the object as its JSON text, so a change knows its size without encoding it again. */
interface CurrentRow {
  revision: string;
  uid: string | null;
  /** The stored object's JSON text; absent when the writer gave the object it read (its length comes instead). */
  object?: string;
  object_length?: number;
}

/** The writer's own copy of what it replaces, when the preconditions make it the stored one. */
const knownPrevious = (pre?: WritePreconditions): KubeObject | undefined => (pre?.revision !== undefined ? pre.previous : undefined);

/** The author column: JSON text, or null when the write named no one. */
const authorColumn = (ctx?: WriteContext): string | null => (ctx?.author ? JSON.stringify(ctx.author) : null);

/** A change with who made it and when it committed (a local write: now, as its transaction ends). */
function withAuthor(change: Change, author: string | null, committedAt: number = Date.now()): Change {
  if (author) change.author = JSON.parse(author) as ChangeAuthor;
  change.committedAt = committedAt;
  return change;
}

function isBelow(revision: string, mark: string): boolean {
  return BigInt(revision) < BigInt(mark);
}

/**
 * The MVCC log on PostgreSQL or PGlite (see migrations/ for the tables).
 *
 * Every write is one transaction that first bumps the single revision counter. The
 * counter's row lock serialises writers until commit, so revisions are assigned in
 * commit order (a reader that sees revision N sees everything below it) and a write that
 * fails gives its number back. The same statement queues the NOTIFY, which PostgreSQL
 * delivers only on commit.
 *
 * Reads are single statements, so each sees one snapshot: items, the revision they
 * reflect and the compaction mark always agree.
 */
/** A one-column result carrying a revision as text (bigint does not fit a JS number). */
interface RevisionRow {
  revision: string;
}

/**
 * Revisions of the log one compaction step sweeps: a row superseded inside a step goes in it,
 * one superseded in a later step goes in that one (its key is touched there), so steps add
 * up to one sweep, each short enough not to hold the embedded engine (and the event loop) long.
 */
const COMPACTION_STEP = 1000n;

/** The newest revision older than the history window ($1 ms): compaction sweeps up to it. */
const HORIZON = `coalesce(
  (SELECT min(revision) - 1 FROM kv_log WHERE created_at > now() - $1::bigint * interval '1 millisecond'),
  (SELECT revision FROM kv_revision WHERE id = 1))`;
const horizonAge = (olderThanMs: number) => Math.max(0, Math.floor(olderThanMs));

/** Bumps the counter and queues the NOTIFY (delivered on commit); answers the write's revision. */
const NEXT_REVISION = `WITH next AS (UPDATE kv_revision SET revision = revision + 1 WHERE id = 1 RETURNING revision)
  SELECT revision::text AS revision, pg_notify($1, revision::text) FROM next`;

/**
 * createMissing's one statement: the keys not in kv_current, numbered in the given order,
 * take as many revisions at once and are written to both tables; one NOTIFY names the last.
 */
const CREATE_MISSING = `WITH input AS (
    SELECT i.ord, i.namespace, i.name, i.uid, i.object::jsonb AS object
      FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS i(namespace, name, uid, object, ord)),
  fresh AS (
    SELECT row_number() OVER (ORDER BY ord) AS n, count(*) OVER () AS total, input.* FROM input
     -- A lookup per key (a subquery the planner keeps per row), never an anti-join that would scan the resource's rows.
     WHERE (SELECT 1 FROM kv_current c WHERE c.resource = $1 AND c.namespace = input.namespace AND c.name = input.name) IS NULL),
  next AS (
    UPDATE kv_revision SET revision = revision + (SELECT count(*) FROM fresh) WHERE id = 1 RETURNING revision),
  numbered AS (
    SELECT next.revision - fresh.total + fresh.n AS revision, fresh.* FROM fresh, next),
  cur AS (
    INSERT INTO kv_current (resource, namespace, name, revision, uid, object)
    SELECT $1, namespace, name, revision, uid, object FROM numbered),
  logged AS (
    INSERT INTO kv_log (revision, resource, namespace, name, op, uid, object, author)
    SELECT revision, $1, namespace, name, 'create', uid, object, $6 FROM numbered),
  notified AS (
    SELECT pg_notify($7, max(revision)::text) FROM numbered HAVING count(*) > 0)
  SELECT ord::int AS ord, revision::text AS revision FROM numbered, (SELECT count(*) FROM notified) n ORDER BY ord`;

export interface MvccStoreOptions {
  /**
   * Concurrent writes share transactions (see GroupCommit). Writers are serialised by the
   * revision counter's lock on both engines (and by the one session on the embedded one), so
   * sharing costs no parallelism and saves a commit, an fsync and the lock's round trips per write.
   */
  groupCommit?: boolean;
  /**
   * The engine never vacuums by itself (the embedded one runs PostgreSQL in single-user mode:
   * no autovacuum): a compaction that removed rows then vacuums and analyzes the two tables
   * past autovacuum's thresholds, so the space of removed and superseded rows is reused
   * rather than the files growing for ever, and the planner's statistics follow the data.
   */
  vacuumAfterCompaction?: boolean;
  /** Told of each write refused because the database's disk is full. */
  diskSpace?: StoreDiskSpace;
}

/**
 * The server's store on an open database: writes grouped into shared commits, and, on the
 * embedded engine (single-user PostgreSQL, no autovacuum), vacuums after compactions.
 */
export function serverStore(db: Database, diskSpace?: StoreDiskSpace): MvccStore {
  return new MvccStore(db.dataSource, db.sql, { groupCommit: true, vacuumAfterCompaction: db.engine === 'pglite', diskSpace });
}

export class MvccStore implements ObjectStore {
  private readonly commitListeners = new Set<LocalCommitListener>();
  private readonly commits: GroupCommit;

  /** `sql` is the hot path (a Database's); without one, statements go through the DataSource. */
  private readonly vacuumAfterCompaction: boolean;
  private readonly diskSpace?: StoreDiskSpace;

  constructor(
    private readonly dataSource: DataSource,
    private readonly sql: SqlSession = dataSourceSession(dataSource),
    options: MvccStoreOptions = {},
  ) {
    this.commits = new GroupCommit(sql, this.commitListeners, options.groupCommit ?? false);
    this.vacuumAfterCompaction = options.vacuumAfterCompaction ?? false;
    this.diskSpace = options.diskSpace;
  }

  addCommitListener(listener: LocalCommitListener): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
  }

  async currentRevision(): Promise<string> {
    const [row] = await this.sql.query<RevisionRow>(`SELECT revision::text AS revision FROM kv_revision WHERE id = 1`);
    return row.revision;
  }

  async compactedRevision(): Promise<string> {
    const [row] = await this.sql.query<RevisionRow>(`SELECT compacted_revision::text AS revision FROM kv_meta WHERE id = 1`);
    return row.revision;
  }

  async get(key: ObjectKey, atRevision?: string): Promise<StoredObject | null> {
    if (!isStorableKey(key)) return null;
    if (atRevision === undefined) {
      const rows = await this.sql.query<ObjectRow>(
        `SELECT revision::text AS revision, object FROM kv_current WHERE resource = $1 AND namespace = $2 AND name = $3`,
        [key.resource, key.namespace, key.name],
      );
      return rows.length ? this.stored(key, rows[0]) : null;
    }
    const [row] = await this.sql.query<Partial<ObjectRow> & { compacted: string; op: Op | null }>(
      `SELECT m.compacted_revision::text AS compacted, l.revision::text AS revision, l.op, l.object
         FROM kv_meta m
         LEFT JOIN LATERAL (
           SELECT revision, op, object FROM kv_log
            WHERE resource = $1 AND namespace = $2 AND name = $3 AND revision <= $4
            ORDER BY revision DESC LIMIT 1) l ON true
        WHERE m.id = 1`,
      [key.resource, key.namespace, key.name, atRevision],
    );
    if (isBelow(atRevision, row.compacted)) throw new RevisionCompactedError(atRevision, row.compacted);
    if (!row.op || row.op === 'delete') return null;
    return this.stored(key, row as ObjectRow);
  }

  async list(resource: string, opts: StoreRangeOptions = {}): Promise<ListResult> {
    if (opts.namespace !== undefined && !isStorableKeyPart(opts.namespace)) return this.emptyList(opts);
    const { sql, params } = buildListQuery(resource, opts);
    const rows = await this.sql.query<Partial<ObjectRow> & { snapshot: string; compacted: string; remaining: string | null; namespace: string | null; name: string }>(
      sql,
      params,
    );
    const { snapshot, compacted, remaining } = rows[0];
    if (opts.atRevision !== undefined && isBelow(opts.atRevision, compacted)) throw new RevisionCompactedError(opts.atRevision, compacted);

    const found = rows[0].namespace === null ? [] : rows;
    const hasMore = remaining !== null;
    const page = hasMore ? found.slice(0, opts.limit) : found;
    return {
      items: page.map((r) => this.stored({ resource, namespace: r.namespace!, name: r.name }, r as ObjectRow)),
      revision: opts.atRevision ?? snapshot,
      hasMore,
      ...(hasMore && Number(remaining) >= 0 ? { remaining: Number(remaining) } : {}),
    };
  }

  create(key: ObjectKey, object: KubeObject, ctx?: WriteContext): Promise<StoredObject> {
    if (!isStorableKey(key)) return Promise.reject(new UnstorableKeyError(key));
    const json = ctx?.json ?? JSON.stringify(object);
    const author = authorColumn(ctx);
    return this.write(key, async (query, took) => {
      // One statement takes the revision and writes both rows, or neither when the key is
      // taken (the revision is then given back with the transaction).
      const [row] = await query<RevisionRow & { created: boolean }>(
        `WITH next AS (
           UPDATE kv_revision SET revision = revision + 1 WHERE id = 1 RETURNING revision),
         fresh AS (
           INSERT INTO kv_current (resource, namespace, name, revision, uid, object)
           SELECT $1::text, $2::text, $3::text, revision, $4::text, $5::jsonb FROM next
           ON CONFLICT (resource, namespace, name) DO NOTHING RETURNING revision),
         logged AS (
           INSERT INTO kv_log (revision, resource, namespace, name, op, uid, object, author)
           SELECT revision, $1, $2, $3, 'create', $4, $5::jsonb, $7 FROM fresh RETURNING revision)
         SELECT revision::text AS revision, pg_notify($6, revision::text), EXISTS (SELECT 1 FROM logged) AS created FROM next`,
        [key.resource, key.namespace, key.name, object.metadata?.uid ?? null, toColumn(json), CHANGES_CHANNEL, author],
      );
      took(row.revision);
      if (!row.created) throw new KeyExistsError(key);
      return withAuthor({ type: 'ADDED', key, revision: row.revision, object: asWritten(object, row.revision), bytes: json.length }, author);
    });
  }

  async createMissing(resource: string, items: ReadonlyArray<{ namespace: string; name: string; object: KubeObject }>, ctx?: WriteContext): Promise<StoredObject[]> {
    const storable = items.filter((item) => isStorableKey(item));
    if (storable.length === 0) return [];
    const jsons = storable.map((item) => JSON.stringify(item.object));
    const author = authorColumn(ctx);
    let changes: Change[];
    try {
      changes = await this.commits.runMany(async (query, took) => {
        // The counter's lock first: the next statement's snapshot then sees every key committed before it.
        await query(`SELECT 1 FROM kv_revision WHERE id = 1 FOR UPDATE`);
        const rows = await query<{ ord: number; revision: string }>(CREATE_MISSING, [
          resource,
          storable.map((item) => item.namespace),
          storable.map((item) => item.name),
          storable.map((item) => item.object.metadata?.uid ?? null),
          jsons.map(toColumn),
          author,
          CHANGES_CHANNEL,
        ]);
        for (const row of rows) took(row.revision);
        return rows.map(({ ord, revision }) => {
          const { namespace, name, object } = storable[ord - 1];
          return withAuthor({ type: 'ADDED', key: { resource, namespace, name }, revision, object: asWritten(object, revision), bytes: jsons[ord - 1].length }, author);
        });
      });
    } catch (err) {
      if (this.diskSpace && storageFailureOf(err) === 'disk-full') this.diskSpace.refused();
      throw err;
    }
    return changes.map((change) => ({ key: change.key, revision: change.revision, object: change.object }));
  }

  update(key: ObjectKey, object: KubeObject, pre?: WritePreconditions, ctx?: WriteContext): Promise<StoredObject> {
    if (!isStorableKey(key)) return Promise.reject(new KeyNotFoundError(key));
    const json = ctx?.json ?? JSON.stringify(object);
    const author = authorColumn(ctx);
    return this.write(key, async (query, took) => {
      const revision = await this.takeRevision(query, took);
      const known = knownPrevious(pre);
      const current = await this.lockCurrent(query, key, pre, known !== undefined);
      await query(
        `WITH changed AS (
           UPDATE kv_current SET revision = $4, uid = $5, object = $6
            WHERE resource = $1 AND namespace = $2 AND name = $3 RETURNING 1)
         INSERT INTO kv_log (revision, resource, namespace, name, op, uid, object, author)
         SELECT $4::bigint, $1, $2, $3, 'update', $5, $6::jsonb, $7 FROM changed`,
        [key.resource, key.namespace, key.name, revision, object.metadata?.uid ?? null, toColumn(json), author],
      );
      return withAuthor(
        {
          type: 'MODIFIED',
          key,
          revision,
          object: asWritten(object, revision),
          previous: known ?? withRevision(JSON.parse(current.object!), current.revision),
          bytes: json.length + (current.object?.length ?? current.object_length ?? 0),
        },
        author,
      );
    });
  }

  delete(key: ObjectKey, pre?: WritePreconditions, ctx?: WriteContext): Promise<StoredObject> {
    if (!isStorableKey(key)) return Promise.reject(new KeyNotFoundError(key));
    const author = authorColumn(ctx);
    return this.write(key, async (query, took) => {
      const revision = await this.takeRevision(query, took);
      const known = knownPrevious(pre);
      const last = await this.lockCurrent(query, key, pre, known !== undefined);
      // The tombstone carries the last state, so watchers and history see what was deleted.
      await query(
        `WITH gone AS (
           DELETE FROM kv_current WHERE resource = $1 AND namespace = $2 AND name = $3 RETURNING uid, object)
         INSERT INTO kv_log (revision, resource, namespace, name, op, uid, object, author)
         SELECT $4::bigint, $1, $2, $3, 'delete', uid, object, $5 FROM gone`,
        [key.resource, key.namespace, key.name, revision, author],
      );
      const previous = known ?? withRevision(JSON.parse(last.object!), last.revision);
      return withAuthor(
        { type: 'DELETED', key, revision, object: asWritten(previous, revision), previous, bytes: 2 * (last.object?.length ?? last.object_length ?? 0) },
        author,
      );
    });
  }

  async changesSince(afterRevision: string, limit: number, maxBytes = Number.MAX_SAFE_INTEGER): Promise<Change[]> {
    // Objects travel as text so their size comes with them; the byte budget is applied to the
    // page in revision order (a running sum), so a page of large objects stops early.
    const rows: Array<{
      compacted: string;
      revision: string | null;
      resource: string;
      namespace: string;
      name: string;
      op: Op;
      object: string;
      previous: string | null;
      previous_revision: string | null;
      author: string | null;
      committed_at: string | null;
    }> = await this.sql.query(
      `WITH page AS (
         SELECT revision, resource, namespace, name, op, object::text AS object, author, created_at
           FROM kv_log WHERE revision > $1 ORDER BY revision LIMIT $2),
       fitting AS (
         SELECT * FROM (
           SELECT page.*, sum(octet_length(object)) OVER (ORDER BY revision) - octet_length(object) AS bytes_before FROM page) sized
          WHERE bytes_before < $3)
       SELECT m.compacted_revision::text AS compacted, f.revision::text AS revision, f.resource, f.namespace, f.name, f.op, f.object, f.author, (extract(epoch FROM f.created_at) * 1000)::float8::text AS committed_at,
              p.object::text AS previous, p.revision::text AS previous_revision
         FROM kv_meta m
         LEFT JOIN fitting f ON true
         LEFT JOIN LATERAL (
           SELECT revision, object FROM kv_log p
            WHERE p.resource = f.resource AND p.namespace = f.namespace AND p.name = f.name AND p.revision < f.revision
            ORDER BY p.revision DESC LIMIT 1) p ON f.op <> 'create'
        WHERE m.id = 1
        ORDER BY f.revision`,
      [afterRevision, Math.max(0, Math.floor(limit)), Math.max(1, Math.floor(maxBytes))],
    );
    const { compacted } = rows[0];
    // Rows after a compacted revision may be gone: a watch from there would miss events.
    if (isBelow(afterRevision, compacted)) throw new RevisionCompactedError(afterRevision, compacted);
    return rows
      .filter((r) => r.revision !== null)
      .map((r) => {
        const change: Change = {
          type: CHANGE_TYPES[r.op],
          key: { resource: r.resource, namespace: r.namespace, name: r.name },
          revision: r.revision!,
          object: withRevision(JSON.parse(r.object), r.revision!),
          bytes: r.object.length + (r.previous?.length ?? 0),
        };
        if (r.previous) change.previous = withRevision(JSON.parse(r.previous), r.previous_revision!);
        return withAuthor(change, r.author, r.committed_at === null ? undefined : Math.round(Number(r.committed_at)));
      });
  }

  /**
   * Drops history older than `olderThanMs` that no read inside the window needs: rows
   * superseded by a newer row of their key, and tombstones. A key's newest row is kept,
   * so a list at any revision from the compaction mark on stays exact.
   *
   * The sweep covers the log up to the horizon (the newest revision such that every row
   * up to it is older than the window) and only the keys written since the last sweep,
   * since earlier ones already hold at most their newest row there. The compaction mark
   * becomes the lowest revision still answered exactly: past every removed tombstone and
   * at the successor of every removed superseded row.
   */
  async compact(olderThanMs: number): Promise<{ removedRows: number; compactedRevision: string }> {
    // Nothing new has aged past the window (an idle server, most runs): one read, no
    // transaction, no row lock and no commit (an fsync on the embedded engine, which would
    // hold the event loop for milliseconds every minute).
    const [idle] = await this.sql.query<{ compacted: string; swept: string; horizon: string }>(
      `SELECT m.compacted_revision::text AS compacted, m.swept_revision::text AS swept, (${HORIZON})::text AS horizon FROM kv_meta m WHERE m.id = 1`,
      [horizonAge(olderThanMs)],
    );
    if (!isBelow(idle.swept, idle.horizon)) return { removedRows: 0, compactedRevision: idle.compacted };
    let removedRows = 0;
    for (;;) {
      const step = await this.compactStep(olderThanMs);
      removedRows += step.removedRows;
      if (!step.more) {
        if (removedRows > 0 && this.vacuumAfterCompaction) await this.vacuum();
        return { removedRows, compactedRevision: step.compactedRevision };
      }
      // Requests run between steps (each step holds the store: on the embedded engine its one session).
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * What autovacuum would do, by its default thresholds: a table whose dead rows pass 50 +
   * 20% of its live rows is vacuumed (and analyzed), one whose rows changed since the last
   * analyze pass 50 + 10% is analyzed. A vacuum of a large log holds the embedded engine's
   * event loop for a while (~200 ms at 60,000 rows), so it runs when it pays, not after every
   * compaction. VACUUM cannot run in a transaction: one statement per table, requests run
   * between them.
   */
  private async vacuum(): Promise<void> {
    // The single-user engine counts rows as it goes but hands the counts to its statistics
    // only when asked to.
    await this.sql.query('SELECT pg_stat_force_next_flush()');
    const tables = await this.sql.query<{ table: string; live: number; dead: number; changed: number }>(
      `SELECT relname AS table, n_live_tup::float8 AS live, n_dead_tup::float8 AS dead, n_mod_since_analyze::float8 AS changed
         FROM pg_stat_user_tables WHERE relname IN ('kv_log', 'kv_current') ORDER BY relname DESC`,
    );
    for (const { table, live, dead, changed } of tables) {
      const statement = dead > 50 + 0.2 * live ? 'VACUUM (ANALYZE)' : changed > 50 + 0.1 * live ? 'ANALYZE' : undefined;
      if (!statement) continue;
      await this.sql.query(`${statement} ${table}`);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** One sweep of at most COMPACTION_STEP revisions of the log; `more` when the horizon is further. */
  private compactStep(olderThanMs: number): Promise<{ removedRows: number; compactedRevision: string; more: boolean }> {
    return this.dataSource.transaction(async (tx) => {
      // Locking the marks makes concurrent compactions (several replicas) take turns.
      const [meta] = await tx.query<{ compacted: string; swept: string }[]>(
        `SELECT compacted_revision::text AS compacted, swept_revision::text AS swept FROM kv_meta WHERE id = 1 FOR UPDATE`,
      );
      const [{ horizon }] = await tx.query<{ horizon: string }[]>(`SELECT (${HORIZON})::text AS horizon`, [horizonAge(olderThanMs)]);
      if (!isBelow(meta.swept, horizon)) return { removedRows: 0, compactedRevision: meta.compacted, more: false };
      const stepEnd = BigInt(meta.swept) + COMPACTION_STEP;
      const upTo = stepEnd < BigInt(horizon) ? stepEnd.toString() : horizon;

      const [swept] = await tx.query<{ count: number; exact_from: string | null }[]>(
        `WITH touched AS (
           SELECT DISTINCT resource, namespace, name FROM kv_log WHERE revision > $1 AND revision <= $2),
         history AS (
           SELECT l.revision, l.op,
                  lead(l.revision) OVER (PARTITION BY l.resource, l.namespace, l.name ORDER BY l.revision) AS successor
             FROM kv_log l JOIN touched t USING (resource, namespace, name)
            WHERE l.revision <= $2),
         doomed AS (
           SELECT revision, CASE WHEN op = 'delete' THEN revision ELSE successor END AS exact_from
             FROM history WHERE op = 'delete' OR successor IS NOT NULL),
         removed AS (
           DELETE FROM kv_log USING doomed WHERE kv_log.revision = doomed.revision RETURNING doomed.exact_from)
         SELECT count(*)::int AS count, max(exact_from)::text AS exact_from FROM removed`,
        [meta.swept, upTo],
      );
      let compacted: string = meta.compacted;
      if (swept.exact_from !== null && isBelow(compacted, swept.exact_from)) compacted = swept.exact_from;
      await tx.query(`UPDATE kv_meta SET compacted_revision = $1, swept_revision = $2 WHERE id = 1`, [compacted, upTo]);
      return { removedRows: Number(swept.count), compactedRevision: compacted, more: upTo !== horizon };
    });
  }

  /** A list of a namespace that cannot exist: no items, at the revision a list would report. */
  private async emptyList(opts: StoreRangeOptions): Promise<ListResult> {
    if (opts.atRevision === undefined) return { items: [], revision: await this.currentRevision(), hasMore: false };
    const compacted = await this.compactedRevision();
    if (isBelow(opts.atRevision, compacted)) throw new RevisionCompactedError(opts.atRevision, compacted);
    return { items: [], revision: opts.atRevision, hasMore: false };
  }

  /** Runs a write in a transaction holding the next revision (shared with other writes when grouped). */
  private async write(key: ObjectKey, fn: RevisionedWrite): Promise<StoredObject> {
    let change: Change;
    try {
      change = await this.commits.run(fn);
    } catch (err) {
      if (this.diskSpace && storageFailureOf(err) === 'disk-full') this.diskSpace.refused();
      throw err;
    }
    return { key, revision: change.revision, object: change.object };
  }

  /** Bumps the counter (its row lock serialises writers until commit) and queues the NOTIFY. */
  private async takeRevision(query: SqlQuery, took: (revision: string) => void): Promise<string> {
    const [{ revision }] = await query<RevisionRow>(NEXT_REVISION, [CHANGES_CHANNEL]);
    took(revision);
    return revision;
  }

  /** Locks the key's current row and checks the preconditions against it. */
  /** Locks the key's row and checks the preconditions; the object's text only when the writer has no copy (`lengthOnly`). */
  private async lockCurrent(query: SqlQuery, key: ObjectKey, pre?: WritePreconditions, lengthOnly = false): Promise<CurrentRow> {
    const rows = await query<CurrentRow>(
      `SELECT revision::text AS revision, uid, ${lengthOnly ? 'length(object::text) AS object_length' : 'object::text AS object'} FROM kv_current
        WHERE resource = $1 AND namespace = $2 AND name = $3 FOR UPDATE`,
      [key.resource, key.namespace, key.name],
    );
    if (rows.length === 0) throw new KeyNotFoundError(key);
    const current = rows[0];
    if (pre?.revision !== undefined && pre.revision !== current.revision) throw new StaleRevisionError(key, pre.revision, current.revision);
    if (pre?.uid !== undefined && pre.uid !== (current.uid ?? '')) throw new UidMismatchError(key, pre.uid, current.uid ?? '');
    return current;
  }

  private stored(key: ObjectKey, row: ObjectRow): StoredObject {
    return { key, revision: row.revision, object: withRevision(row.object, row.revision) };
  }
}
