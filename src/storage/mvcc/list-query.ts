import { StoreRangeOptions } from './object-store';

/**
 * Builds the one statement behind ObjectStore.list. One statement reads one snapshot, so
 * the items, the revision they reflect, the compaction mark and the count of what follows
 * all agree without an explicit transaction.
 *
 * Result rows: `snapshot` (the counter), `compacted`, `remaining` (only when the page is
 * full) and one item per row (`namespace`, `name`, `revision`, `object`); with no items a
 * single row whose item columns are NULL.
 */
export interface ListQuery {
  sql: string;
  params: unknown[];
}

export function buildListQuery(resource: string, opts: StoreRangeOptions): ListQuery {
  const params: unknown[] = [resource];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };

  const where = ['resource = $1'];
  if (opts.namespace !== undefined) where.push(`namespace = ${param(opts.namespace)}`);
  if (opts.after) where.push(`(namespace, name) > (${param(opts.after.namespace)}, ${param(opts.after.name)})`);

  // The items in key order, before paging: current rows, or each key's newest row at the revision.
  const source =
    opts.atRevision === undefined
      ? `SELECT namespace, name, revision, object FROM kv_current WHERE ${where.join(' AND ')}`
      : `SELECT namespace, name, revision, object FROM (
           SELECT DISTINCT ON (namespace, name) namespace, name, revision, op, object FROM kv_log
            WHERE ${where.join(' AND ')} AND revision <= ${param(opts.atRevision)}
            ORDER BY namespace, name, revision DESC) newest
         WHERE op <> 'delete'`;

  // One more row than asked says whether more follow; only then are the rest counted.
  // (An uncorrelated subquery runs on first use, so the count is skipped otherwise.)
  let page = `SELECT * FROM (${source}) items ORDER BY namespace, name`;
  let remaining = 'NULL::bigint';
  if (opts.limit !== undefined) {
    const limit = Math.max(0, Math.floor(opts.limit));
    const fetch = param(limit + 1);
    page += ` LIMIT ${fetch}`;
    // Without a count (a reader that pages through everything): -1 says only that more follow.
    const rest = opts.countRemaining === false ? '-1' : `(SELECT count(*) FROM (${source}) rest) - ${limit}`;
    remaining = `CASE WHEN (SELECT count(*) FROM page) = ${fetch} THEN ${rest} END`;
  }

  const sql = `
    WITH page AS (${page})
    SELECT meta.snapshot, meta.compacted, meta.remaining,
           page.namespace, page.name, page.revision::text AS revision, page.object
      FROM (SELECT (SELECT revision FROM kv_revision WHERE id = 1)::text AS snapshot,
                   (SELECT compacted_revision FROM kv_meta WHERE id = 1)::text AS compacted,
                   (${remaining})::text AS remaining) meta
      LEFT JOIN page ON true
     ORDER BY page.namespace, page.name`;
  return { sql, params };
}
