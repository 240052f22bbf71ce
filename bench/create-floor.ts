import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { openDatabase } from '../src/storage/engine/database';
import { startPGlite } from '../src/storage/engine/pglite-loader';

/** One create's SQL, as the store runs it: bump the counter (with its NOTIFY), then the current row and the log row. */
const NEXT_REVISION = `WITH next AS (UPDATE kv_revision SET revision = revision + 1 WHERE id = 1 RETURNING revision)
  SELECT revision::text AS revision, pg_notify('kv_changes', revision::text) FROM next`;
const INSERT_OBJECT = `WITH fresh AS (
    INSERT INTO kv_current (resource, namespace, name, revision, uid, object) VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (resource, namespace, name) DO NOTHING RETURNING 1)
  INSERT INTO kv_log (revision, resource, namespace, name, op, uid, object)
  SELECT $4::bigint, $1, $2, $3, 'create', $5, $6::jsonb FROM fresh RETURNING revision`;

/** Runs one create transaction on the floor's database; answers the revision. */
type CreateSql = (name: string, uid: string, json: string) => Promise<string>;

export interface CreateFloorEngine {
  /** PostgreSQL URL of a scratch database; unset = embedded PGlite in a temp directory. */
  databaseUrl?: string;
  /** Embedded only: fsync per commit (the server's default). */
  fsync?: boolean;
}

let createSql: CreateSql;

@Controller()
class FloorController {
  @Post('floor')
  @HttpCode(201)
  async create(@Body() body: { metadata?: Record<string, unknown> }) {
    const uid = randomUUID();
    const name = String(body.metadata?.name ?? '');
    const object = { ...body, metadata: { ...body.metadata, namespace: 'bench-create', uid, creationTimestamp: new Date().toISOString() } };
    const revision = await createSql(name, uid, JSON.stringify(object));
    return { ...object, metadata: { ...object.metadata, resourceVersion: revision } };
  }
}

@Module({ controllers: [FloorController] })
class FloorModule {}

/**
 * The floor for create throughput: a bare Nest + Express HTTPS endpoint that parses the body
 * and runs the same SQL as a create (counter UPDATE + insert of both rows) in one transaction
 * on the same engine with the same settings (migrated schema, fsync, shared_buffers), with
 * no ORM in between. What the server adds above it is ours.
 */
export async function startCreateFloor(tls: { key: string; cert: string }, engine: CreateFloorEngine): Promise<{ url: string; close(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-floor-'));
  // The real migrations make the schema (indexes included); then the floor talks to the engine directly.
  const migrated = await openDatabase({ dataDir, databaseUrl: engine.databaseUrl, fsync: engine.fsync });
  await migrated.close();
  let closeDb: () => Promise<void>;
  if (engine.databaseUrl) {
    const pool = new Pool({ connectionString: engine.databaseUrl, max: 10 });
    createSql = async (name, uid, json) => {
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        const { rows } = await c.query<{ revision: string }>(NEXT_REVISION);
        const inserted = await c.query(INSERT_OBJECT, ['roles', 'bench-create', name, rows[0].revision, uid, json]);
        if (inserted.rowCount === 0) throw new Error(`floor: ${name} exists`);
        await c.query('COMMIT');
        return rows[0].revision;
      } catch (err) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        c.release();
      }
    };
    closeDb = () => pool.end();
  } else {
    const db = await startPGlite(join(dataDir, 'db'), { durable: engine.fsync !== false });
    createSql = (name, uid, json) =>
      db.transaction(async (tx) => {
        const { rows } = await tx.query<{ revision: string }>(NEXT_REVISION);
        const inserted = await tx.query(INSERT_OBJECT, ['roles', 'bench-create', name, rows[0].revision, uid, json]);
        if (inserted.rows.length === 0) throw new Error(`floor: ${name} exists`);
        return rows[0].revision;
      });
    closeDb = () => db.close();
  }
  const app = await NestFactory.create(FloorModule, { httpsOptions: tls, logger: ['error'] });
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    async close() {
      await app.close();
      await closeDb();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
