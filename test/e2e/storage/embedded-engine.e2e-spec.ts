import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { EngineThread } from '../../../src/storage/engine/embedded-engine';
import { PGliteDatabaseError } from '../../../src/storage/engine/engine-errors';

/**
 * The embedded engine in its own thread: statements run there while the server's event loop
 * goes on; answers, errors, transactions and notifications come back as PGlite gives them.
 */
describe('the embedded engine in its own thread', () => {
  let engine: EngineThread;

  beforeAll(async () => {
    engine = await EngineThread.start(undefined, { durable: false });
    await engine.exec('CREATE TABLE items (id int PRIMARY KEY, doc jsonb, big int8)');
  });
  afterAll(() => engine?.close());

  it('runs a statement while the event loop goes on', async () => {
    let ticks = 0;
    let duringQuery = 0;
    let pending = true;
    const timer = setInterval(() => {
      ticks++;
      if (pending) duringQuery++;
    }, 5);
    const started = performance.now();
    try {
      // Long enough that a statement holding the event loop would leave no timer a turn.
      await engine.query('SELECT count(*) FROM generate_series(1, 1500000) AS s(i) WHERE i % 7 = 0');
    } finally {
      pending = false;
      clearInterval(timer);
    }
    expect(performance.now() - started).toBeGreaterThan(100);
    expect(duringQuery).toBeGreaterThanOrEqual(3);
    expect(ticks).toBe(duringQuery);
  });

  it('gives rows as PGlite does: json parsed, int8 as a string', async () => {
    await engine.query('INSERT INTO items (id, doc, big) VALUES ($1, $2, $3)', [1, JSON.stringify({ a: [1, 'two'] }), '9007199254740993']);
    const result = await engine.query<{ id: number; doc: unknown; big: string }>('SELECT id, doc, big FROM items WHERE id = $1', [1]);
    expect(result.rows).toEqual([{ id: 1, doc: { a: [1, 'two'] }, big: '9007199254740993' }]);
    expect(result.fields.map((f) => f.name)).toEqual(['id', 'doc', 'big']);
    // Several statements without parameters: one result each.
    const results = await engine.exec("INSERT INTO items (id) VALUES (2); SELECT id, big FROM items WHERE id IN (1, 2) ORDER BY id");
    expect(results).toHaveLength(2);
    expect(results[1].rows).toEqual([{ id: 1, big: '9007199254740993' }, { id: 2, big: null }]);
  });

  it("reports the engine's errors with pg's fields", async () => {
    const failed = await engine.query('INSERT INTO items (id) VALUES (1)').catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(PGliteDatabaseError);
    expect(failed).toMatchObject({ code: '23505', constraint: 'items_pkey', severity: 'ERROR', message: expect.stringContaining('duplicate key') });
    // The session goes on after an error.
    expect((await engine.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('commits a transaction that resolves, and rolls back one that throws with its own error', async () => {
    await engine.transaction(async (tx) => {
      await tx.query('INSERT INTO items (id) VALUES ($1)', [10]);
      expect(engine.isInTransaction()).toBe(true);
    });
    expect(engine.isInTransaction()).toBe(false);
    const own = new Error('the caller changed its mind');
    const thrown = await engine
      .transaction(async (tx) => {
        await tx.query('INSERT INTO items (id) VALUES ($1)', [11]);
        throw own;
      })
      .catch((err: unknown) => err);
    expect(thrown).toBe(own);
    expect(engine.isInTransaction()).toBe(false);
    expect((await engine.query('SELECT id FROM items WHERE id IN (10, 11) ORDER BY id')).rows).toEqual([{ id: 10 }]);
  });

  it('delivers a notification before the answer of the statement that committed it, until unlistened', async () => {
    const seen: string[] = [];
    const stop = await engine.listen('changes', (payload) => seen.push(`notify ${payload}`));
    await engine.query("SELECT pg_notify('changes', '42')");
    seen.push('answered');
    await stop();
    await engine.query("SELECT pg_notify('changes', '43')");
    expect(seen).toEqual(['notify 42', 'answered']);
  });

  it('answers concurrent callers each with its own result, in order', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => engine.query<{ n: number }>('SELECT $1::int AS n', [i])));
    expect(answers.map((a) => a.rows[0].n)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });
});

describe('the embedded engine thread, started and stopped', () => {
  it('rejects every call after close, naming why', async () => {
    const engine = await EngineThread.start(undefined, { durable: false });
    await engine.close();
    expect(engine.closed).toBe(true);
    await expect(engine.query('SELECT 1')).rejects.toThrow('the embedded store is closed');
    await engine.close(); // a second close is a no-op
  });

  it('fails every waiting and later call, naming why, when its thread ends', async () => {
    const engine = await EngineThread.start(undefined, { durable: false });
    const waiting = engine.query('SELECT count(*) FROM generate_series(1, 1500000)');
    // Nothing outside ends the thread but a crash of the engine; terminating it stands in for one.
    await (engine as unknown as { worker: Worker }).worker.terminate();
    await expect(waiting).rejects.toThrow("the embedded store engine's thread ended (exit 1)");
    await expect(engine.query('SELECT 1')).rejects.toThrow("the embedded store engine's thread ended (exit 1)");
    expect(engine.closed).toBe(true);
    await engine.close();
  });

  it('fails to start with the reason when the data directory cannot be used', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'engine-')), 'not-a-dir');
    writeFileSync(file, 'x');
    await expect(EngineThread.start(file, { durable: false })).rejects.toThrow(/./);
  });
});
