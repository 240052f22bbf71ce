import { DataSource, EntityManager } from 'typeorm';
import { KubeObject } from '../api/types';
import { CHANGES_CHANNEL } from './database';
import {
  Change,
  ChangeType,
  KeyExistsError,
  KeyNotFoundError,
  ListOptions,
  ListResult,
  ObjectKey,
  ObjectStore,
  RevisionCompactedError,
  StaleRevisionError,
  StoredObject,
  UidMismatchError,
  WritePreconditions,
} from './object-store';

const OP_CREATE = 1;
const OP_UPDATE = 2;
const OP_DELETE = 3;
const CHANGE_TYPES: Record<number, ChangeType> = { [OP_CREATE]: 'ADDED', [OP_UPDATE]: 'MODIFIED', [OP_DELETE]: 'DELETED' };

interface Row {
  revision: string;
  resource: string;
  namespace: string;
  name: string;
  object: KubeObject | string;
  op?: number;
  previous?: KubeObject | string | null;
}

/** TypeORM answers UPDATE/DELETE ... RETURNING with [rows, affectedCount]; take the rows. */
function returnedRows<T>(result: unknown): T[] {
  const r = result as unknown[];
  return (Array.isArray(r) && r.length === 2 && Array.isArray(r[0]) && typeof r[1] === 'number' ? r[0] : r) as T[];
}

function parseObject(value: KubeObject | string): KubeObject {
  return typeof value === 'string' ? (JSON.parse(value) as KubeObject) : value;
}

/** The object as clients see it: resourceVersion is the revision of the row, never the stored text. */
function withRevision(value: KubeObject | string, revision: string): KubeObject {
  const obj = parseObject(value);
  obj.metadata = { ...(obj.metadata ?? {}), resourceVersion: revision };
  return obj;
}

/** What is stored: the object without resourceVersion (the row's revision is the truth). */
function toStored(obj: KubeObject): string {
  const { resourceVersion: _rv, ...metadata } = obj.metadata ?? {};
  return JSON.stringify({ ...obj, metadata });
}

/**
 * The MVCC log on PostgreSQL (or PGlite). Every write runs in one transaction that first
 * bumps the single revision counter: its row lock serialises writers, so revisions are
 * assigned in commit order, and a rolled-back write gives its number back (no gaps).
 */
export class MvccStore implements ObjectStore {
  constructor(private readonly dataSource: DataSource) {}

  async currentRevision(): Promise<string> {
    const rows: Array<{ revision: string }> = await this.dataSource.query('SELECT revision::text AS revision FROM kv_revision WHERE id = 1');
    return rows[0].revision;
  }

  async compactedRevision(): Promise<string> {
    const rows: Array<{ revision: string }> = await this.dataSource.query(
      'SELECT compacted_revision::text AS revision FROM kv_meta WHERE id = 1',
    );
    return rows[0].revision;
  }

  async get(key: ObjectKey, atRevision?: string): Promise<StoredObject | null> {
    if (atRevision === undefined) {
      const rows: Row[] = await this.dataSource.query(
        'SELECT revision::text AS revision, object FROM kv_current WHERE resource = $1 AND namespace = $2 AND name = $3',
        [key.resource, key.namespace, key.name],
      );
      return rows.length ? { key, revision: rows[0].revision, object: withRevision(rows[0].object, rows[0].revision) } : null;
    }
    return this.dataSource.transaction('REPEATABLE READ', async (m) => {
      await this.checkNotCompacted(m, atRevision);
      const rows: Row[] = await m.query(
        `SELECT revision::text AS revision, op, object FROM kv_log
          WHERE resource = $1 AND namespace = $2 AND name = $3 AND revision <= $4
          ORDER BY revision DESC LIMIT 1`,
        [key.resource, key.namespace, key.name, atRevision],
      );
      if (!rows.length || rows[0].op === OP_DELETE) return null;
      return { key, revision: rows[0].revision, object: withRevision(rows[0].object, rows[0].revision) };
    });
  }

  async list(resource: string, opts: ListOptions = {}): Promise<ListResult> {
    // One snapshot for the items, the count and (for current reads) the revision.
    return this.dataSource.transaction('REPEATABLE READ', async (m) => {
      const params: unknown[] = [resource];
      const where: string[] = ['resource = $1'];
      if (opts.namespace !== undefined) {
        params.push(opts.namespace);
        where.push(`namespace = $${params.length}`);
      }
      if (opts.after) {
        params.push(opts.after.namespace, opts.after.name);
        where.push(`(namespace, name) > ($${params.length - 1}, $${params.length})`);
      }
      let source: string;
      let revision: string;
      if (opts.atRevision === undefined) {
        revision = (await m.query('SELECT revision::text AS revision FROM kv_revision WHERE id = 1'))[0].revision;
        source = `SELECT namespace, name, revision, object FROM kv_current WHERE ${where.join(' AND ')}`;
      } else {
        await this.checkNotCompacted(m, opts.atRevision);
        revision = opts.atRevision;
        params.push(opts.atRevision);
        source = `SELECT namespace, name, revision, object FROM (
            SELECT DISTINCT ON (namespace, name) namespace, name, revision, op, object FROM kv_log
             WHERE ${where.join(' AND ')} AND revision <= $${params.length}
             ORDER BY namespace, name, revision DESC) newest
          WHERE op <> ${OP_DELETE}`;
      }
      const limitClause = opts.limit !== undefined ? `LIMIT ${Math.max(0, Math.floor(opts.limit)) + 1}` : '';
      const rows: Row[] = await m.query(
        `SELECT namespace, name, revision::text AS revision, object FROM (${source}) s ORDER BY namespace, name ${limitClause}`,
        params,
      );
      const hasMore = opts.limit !== undefined && rows.length > opts.limit;
      const page = hasMore ? rows.slice(0, opts.limit) : rows;
      let remaining: number | undefined;
      if (hasMore) {
        const last = page[page.length - 1];
        const countParams = [...params, last.namespace, last.name];
        const counted: Array<{ n: string }> = await m.query(
          `SELECT count(*)::text AS n FROM (${source}) s WHERE (namespace, name) > ($${countParams.length - 1}, $${countParams.length})`,
          countParams,
        );
        remaining = Number(counted[0].n);
      }
      return {
        items: page.map((r) => ({
          key: { resource, namespace: r.namespace, name: r.name },
          revision: r.revision,
          object: withRevision(r.object, r.revision),
        })),
        revision,
        hasMore,
        remaining,
      };
    });
  }

  create(key: ObjectKey, object: KubeObject): Promise<StoredObject> {
    return this.write(async (m, revision) => {
      const inserted: unknown[] = await m.query(
        `INSERT INTO kv_current (resource, namespace, name, revision, uid, object) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (resource, namespace, name) DO NOTHING RETURNING revision`,
        [key.resource, key.namespace, key.name, revision, object.metadata?.uid ?? null, toStored(object)],
      );
      if (inserted.length === 0) throw new KeyExistsError(key);
      await this.appendLog(m, revision, key, OP_CREATE, object, null);
      return { key, revision, object: withRevision(structuredClone(object), revision) };
    });
  }

  update(key: ObjectKey, object: KubeObject, pre?: WritePreconditions): Promise<StoredObject> {
    return this.write(async (m, revision) => {
      const current = await this.lockCurrent(m, key, pre);
      await m.query(
        `UPDATE kv_current SET revision = $4, uid = $5, object = $6 WHERE resource = $1 AND namespace = $2 AND name = $3`,
        [key.resource, key.namespace, key.name, revision, object.metadata?.uid ?? null, toStored(object)],
      );
      await this.appendLog(m, revision, key, OP_UPDATE, object, current.revision);
      return { key, revision, object: withRevision(structuredClone(object), revision) };
    });
  }

  delete(key: ObjectKey, pre?: WritePreconditions): Promise<StoredObject> {
    return this.write(async (m, revision) => {
      const current = await this.lockCurrent(m, key, pre);
      await m.query('DELETE FROM kv_current WHERE resource = $1 AND namespace = $2 AND name = $3', [key.resource, key.namespace, key.name]);
      const last = parseObject(current.object);
      await this.appendLog(m, revision, key, OP_DELETE, last, current.revision);
      return { key, revision, object: withRevision(last, revision) };
    });
  }

  async changesSince(afterRevision: string, limit: number): Promise<Change[]> {
    return this.dataSource.transaction('REPEATABLE READ', async (m) => {
      await this.checkNotCompacted(m, afterRevision);
      const rows: Row[] = await m.query(
        `SELECT l.revision::text AS revision, l.resource, l.namespace, l.name, l.op, l.object, p.object AS previous
           FROM kv_log l LEFT JOIN kv_log p ON p.revision = l.prev_revision
          WHERE l.revision > $1 ORDER BY l.revision LIMIT $2`,
        [afterRevision, limit],
      );
      return rows.map((r) => {
        const change: Change = {
          type: CHANGE_TYPES[r.op!],
          key: { resource: r.resource, namespace: r.namespace, name: r.name },
          revision: r.revision,
          object: withRevision(r.object, r.revision),
        };
        if (r.previous) change.previous = parseObject(r.previous);
        return change;
      });
    });
  }

  async compact(olderThanMs: number): Promise<{ removedRows: number; compactedRevision: string }> {
    return this.dataSource.transaction(async (m) => {
      const target: Array<{ revision: string }> = await m.query(
        `SELECT coalesce(max(revision), 0)::text AS revision FROM kv_log WHERE created_at < clock_timestamp() - ($1::bigint * interval '1 millisecond')`,
        [Math.floor(olderThanMs)],
      );
      const upTo = target[0].revision;
      // Superseded rows and tombstones at or below the mark go; a live key's newest row stays.
      const removed = returnedRows(await m.query(
        `DELETE FROM kv_log l WHERE l.revision <= $1 AND (l.op = ${OP_DELETE} OR EXISTS (
           SELECT 1 FROM kv_log n WHERE n.resource = l.resource AND n.namespace = l.namespace AND n.name = l.name AND n.revision > l.revision))
         RETURNING l.revision`,
        [upTo],
      ));
      const updated = returnedRows<{ revision: string }>(
        await m.query(
          `UPDATE kv_meta SET compacted_revision = GREATEST(compacted_revision, $1::bigint) WHERE id = 1 RETURNING compacted_revision::text AS revision`,
          [upTo],
        ),
      );
      return { removedRows: removed.length, compactedRevision: updated[0].revision };
    });
  }

  /** Runs a write in a transaction holding the next revision; NOTIFY is delivered on commit. */
  private write<T>(fn: (m: EntityManager, revision: string) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (m) => {
      const rows = returnedRows<{ revision: string }>(
        await m.query('UPDATE kv_revision SET revision = revision + 1 WHERE id = 1 RETURNING revision::text AS revision'),
      );
      const revision = rows[0].revision;
      const result = await fn(m, revision);
      await m.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, revision]);
      return result;
    });
  }

  private async lockCurrent(m: EntityManager, key: ObjectKey, pre?: WritePreconditions): Promise<Row> {
    const rows: Array<Row & { uid: string | null }> = await m.query(
      `SELECT revision::text AS revision, uid, object FROM kv_current WHERE resource = $1 AND namespace = $2 AND name = $3 FOR UPDATE`,
      [key.resource, key.namespace, key.name],
    );
    if (!rows.length) throw new KeyNotFoundError(key);
    const current = rows[0];
    if (pre?.revision !== undefined && pre.revision !== current.revision) throw new StaleRevisionError(key, pre.revision, current.revision);
    if (pre?.uid !== undefined && pre.uid !== (current.uid ?? '')) throw new UidMismatchError(key, pre.uid, current.uid ?? '');
    return current;
  }

  private async appendLog(m: EntityManager, revision: string, key: ObjectKey, op: number, object: KubeObject, prev: string | null) {
    await m.query(
      `INSERT INTO kv_log (revision, resource, namespace, name, op, uid, object, prev_revision) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [revision, key.resource, key.namespace, key.name, op, object.metadata?.uid ?? null, toStored(object), prev],
    );
  }

  private async checkNotCompacted(m: EntityManager, revision: string): Promise<void> {
    const rows: Array<{ revision: string }> = await m.query('SELECT compacted_revision::text AS revision FROM kv_meta WHERE id = 1');
    if (BigInt(revision) < BigInt(rows[0].revision)) throw new RevisionCompactedError(revision, rows[0].revision);
  }
}
