import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { openDatabase } from '../src/storage/engine/database';
import { MvccStore, serverStore } from '../src/storage/mvcc/mvcc-store';
import { SqlQuery, SqlSession } from '../src/storage/engine/sql-session';
import { createScratchDatabase } from './scratch-database';

/**
 * `npm run bench -- counter`: what the single revision counter carries on PostgreSQL. Every
 * write bumps one row inside its transaction and holds its lock until commit, so writers that
 * do not share a transaction take turns for a whole commit (a WAL flush) each. Measured at 1, 8
 * and 32 writers, each on a connection of its own (as that many replicas, or uncoordinated
 * writers), for:
 *
 * - `counter`: the store's create (MvccStore, one transaction per write): counter, current
 *   row, log row and NOTIFY in one statement;
 * - `sequence`: the same rows with the revision from a sequence instead (no hot row: the floor
 *   a counter-free design would start from, and what it gives up: revisions would no longer
 *   follow commit order);
 * - `grouped`: one server process's store as it runs (group commit: the writes waiting for the
 *   counter share the next transaction and its commit), the writers being its concurrent requests.
 *
 * BENCH_COUNTER_SECONDS sets each measurement's length (4, after a second of warm-up).
 */
const PG_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const SECONDS = Number(process.env.BENCH_COUNTER_SECONDS ?? 4);
const WRITERS = [1, 8, 32];

const object = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'bench', uid: name }, data: { k: 'v'.repeat(200) } });

function clientSession(client: Client): SqlSession {
  const query: SqlQuery = async <T>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as T[];
  return {
    query,
    async transaction<T>(fn: (q: SqlQuery) => Promise<T>): Promise<T> {
      await client.query('BEGIN');
      try {
        const result = await fn(query);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
    },
  };
}

/** Runs `writers` loops of `write` for a second (warm-up), then for SECONDS: creates per second. */
async function measure(writers: number, write: (writer: number, i: number) => Promise<unknown>): Promise<number> {
  await timed(writers, 1, (w, i) => write(w, -1 - i));
  return timed(writers, SECONDS, write);
}

async function timed(writers: number, seconds: number, write: (writer: number, i: number) => Promise<unknown>): Promise<number> {
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; Date.now() < deadline; i++) {
        await write(w, i);
        done++;
      }
    }),
  );
  return done / (Number(process.hrtime.bigint() - started) / 1e9);
}

const SEQUENCE_SCHEMA = [
  `CREATE SEQUENCE bench_revision`,
  `CREATE TABLE bench_current (resource text, namespace text, name text, revision bigint, uid text, object jsonb, PRIMARY KEY (resource, namespace, name))`,
  `CREATE TABLE bench_log (revision bigint PRIMARY KEY, resource text, namespace text, name text, op text, uid text, object jsonb, created_at timestamptz DEFAULT now())`,
];
const SEQUENCE_CREATE = `WITH next AS (SELECT nextval('bench_revision') AS revision),
  fresh AS (INSERT INTO bench_current SELECT $1, $2, $3, revision, $4, $5::jsonb FROM next ON CONFLICT DO NOTHING RETURNING revision),
  logged AS (INSERT INTO bench_log (revision, resource, namespace, name, op, uid, object) SELECT revision, $1, $2, $3, 'create', $4, $5::jsonb FROM fresh RETURNING revision)
  SELECT revision::text, pg_notify('bench', revision::text) FROM next`;

export async function runRevisionCounterBench(): Promise<void> {
  const probe = new Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await probe.connect();
  } catch {
    console.log(`counter: PostgreSQL at ${PG_URL} does not answer; skipped`);
    return;
  }
  const settings = await probe.query<{ name: string; setting: string }>(
    `SELECT name, setting FROM pg_settings WHERE name IN ('server_version', 'fsync', 'synchronous_commit', 'wal_sync_method', 'commit_delay')`,
  );
  await probe.end();
  Logger.overrideLogger(['error']);
  console.log(`revision counter on PostgreSQL (${settings.rows.map((r) => `${r.name}=${r.setting}`).join(', ')}), ${SECONDS} s per figure, creates per second:`);
  console.log('  writers | counter (a transaction each) | sequence (no hot row) | grouped (one server, group commit)');

  const scratch = await createScratchDatabase(PG_URL, 'counter');
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-counter-'));
  const db = await openDatabase({ databaseUrl: scratch.url, dataDir });
  const clients: Client[] = [];
  try {
    for (let i = 0; i < Math.max(...WRITERS); i++) {
      const c = new Client({ connectionString: scratch.url });
      await c.connect();
      clients.push(c);
    }
    for (const statement of SEQUENCE_SCHEMA) await clients[0].query(statement);
    const sessions = clients.map((c) => clientSession(c));
    const stores = sessions.map((session) => new MvccStore(db.dataSource, session, { groupCommit: false }));
    const grouped = serverStore(db);
    for (const writers of WRITERS) {
      const counter = await measure(writers, (w, i) => stores[w].create({ resource: 'configmaps', namespace: 'bench', name: `c-${writers}-${w}-${i}` }, object(`c-${writers}-${w}-${i}`)));
      // In a transaction of its own too (BEGIN, the statement, COMMIT: the store's round trips).
      const sequence = await measure(writers, (w, i) =>
        sessions[w].transaction((query) => query(SEQUENCE_CREATE, ['configmaps', 'bench', `s-${writers}-${w}-${i}`, `s-${w}-${i}`, JSON.stringify(object(`s-${writers}-${w}-${i}`))])),
      );
      const group = await measure(writers, (w, i) => grouped.create({ resource: 'configmaps', namespace: 'bench', name: `g-${writers}-${w}-${i}` }, object(`g-${writers}-${w}-${i}`)));
      console.log(`  ${String(writers).padStart(7)} | ${counter.toFixed(0).padStart(28)} | ${sequence.toFixed(0).padStart(21)} | ${group.toFixed(0).padStart(34)}`);
    }
  } finally {
    for (const c of clients) await c.end().catch(() => undefined);
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
    await scratch.drop();
  }
}
