import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeObject } from '../../../src/apimachinery/types';
import { ChangeFeed } from '../../../src/storage/changefeed/change-feed';
import { Database, openDatabase } from '../../../src/storage/engine/database';
import { EngineThread } from '../../../src/storage/engine/embedded-engine';
import { RecyclePolicy } from '../../../src/storage/engine/restarting-engine';
import { serverStore } from '../../../src/storage/mvcc/mvcc-store';
import { Change, ObjectKey } from '../../../src/storage/mvcc/object-store';
import { ensureTemplate } from '../../support/db-template';
import { eventually } from '../../support/eventually';

const MiB = 1024 * 1024;
const RESOURCE = 'configmaps';
const keyOf = (name: string): ObjectKey => ({ resource: RESOURCE, namespace: 'default', name });
/** An object of about `bytes` of data that does not compress. */
const objectOf = (name: string, bytes = 100): KubeObject => ({ metadata: { name, namespace: 'default' }, data: { blob: randomBytes(bytes).toString('base64') } });

/** Figures low enough for a test: a few large objects grow the engine past the margin, and it recycles as soon as the store is quiet. */
const POLICY: Partial<RecyclePolicy> = { growthBytes: 12 * MiB, idleMs: 500, checkMs: 100, maxRecycles: 3, recycleWindowMs: 3_600_000 };
const RECYCLED = /memory grew from (\d+) MiB to (\d+) MiB: started it anew to give it back \((\d+) MiB now; statements waited (\d+) ms\)/;

/**
 * The embedded engine recycled after large inputs grew its memory: once the store is idle, the
 * engine is shut down and a new one started on the same directory. Writes that arrive meanwhile
 * wait and succeed, a change feed that hears of commits only through NOTIFY (as another
 * replica's would) delivers every change exactly once, nothing stored is lost, and the new
 * engine holds less memory than the one it replaced.
 */
describe('the embedded engine, recycled when large inputs grew its memory', () => {
  let dataDir: string;
  let db: Database;
  let logged: jest.SpyInstance;
  let starts: jest.SpyInstance;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'platform-recycle-'));
    logged = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    db = await openDatabase({ dataDir, template: await ensureTemplate(), fsync: false, engineRecycle: POLICY });
  });
  afterAll(async () => {
    starts?.mockRestore();
    logged?.mockRestore();
    await db?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const recycleLines = () => logged.mock.calls.map(([message]) => String(message)).filter((message) => RECYCLED.test(message));

  it('gives the memory back while writes wait and succeed, the feed stays exact and the data intact', async () => {
    const writer = serverStore(db);
    // A store of its own for the feed: it hears of the writer's commits only through NOTIFY.
    const feed = new ChangeFeed(serverStore(db), { subscribe: (onWake) => db.notifier.listen((revision) => onWake(revision)), complete: true });
    await feed.start();
    const delivered: Change[] = [];
    const unsubscribe = feed.subscribe(feed.headRevision(), { next: (changes) => delivered.push(...changes), end: () => undefined });
    expect(unsubscribe).not.toBeNull();
    const from = BigInt(feed.headRevision());

    try {
      const kept = await writer.create(keyOf('kept'), objectOf('kept'));
      for (let i = 0; i < 10; i++) await writer.create(keyOf(`large-${i}`), objectOf(`large-${i}`, 3 * MiB));
      for (let i = 0; i < 10; i++) await writer.delete(keyOf(`large-${i}`));

      // Writes that arrive while the old engine is shut down and the new one starts.
      const during: Array<Promise<{ name: string; revision: string; waitedMs: number }>> = [];
      const start = EngineThread.start.bind(EngineThread);
      starts = jest.spyOn(EngineThread, 'start').mockImplementation((...args) => {
        for (let i = 0; i < 5; i++) {
          const name = `during-${during.length}`;
          const asked = performance.now();
          during.push(writer.create(keyOf(name), objectOf(name)).then((stored) => ({ name, revision: stored.revision, waitedMs: performance.now() - asked })));
        }
        return start(...args);
      });

      await eventually(() => expect(recycleLines()).toHaveLength(1), 30_000);
      const [, grownFrom, grownTo, now] = RECYCLED.exec(recycleLines()[0])!.map(Number);
      expect(grownTo - grownFrom).toBeGreaterThanOrEqual(POLICY.growthBytes! / MiB);
      expect(now).toBeLessThan(grownTo - POLICY.growthBytes! / MiB);

      const written = await Promise.all(during);
      expect(written).toHaveLength(5);
      const after = await writer.create(keyOf('after'), objectOf('after'));

      // Every change since the feed started, each exactly once, in order.
      const head = BigInt(after.revision);
      await eventually(() => expect(BigInt(feed.headRevision())).toBe(head));
      expect(delivered.map((c) => BigInt(c.revision))).toEqual(Array.from({ length: Number(head - from) }, (_, i) => from + BigInt(i + 1)));
      expect(delivered.map((c) => `${c.type} ${c.key.name}`)).toEqual([
        'ADDED kept',
        ...Array.from({ length: 10 }, (_, i) => `ADDED large-${i}`),
        ...Array.from({ length: 10 }, (_, i) => `DELETED large-${i}`),
        ...written.map((w) => `ADDED ${w.name}`),
        'ADDED after',
      ]);

      // What was stored is there, on the new engine.
      expect((await writer.get(keyOf('kept')))?.object).toEqual(kept.object);
      for (const w of written) expect((await writer.get(keyOf(w.name)))?.revision).toBe(w.revision);
      expect((await writer.list(RESOURCE)).items.map((i) => i.object.metadata.name).sort()).toEqual(['after', 'kept', ...written.map((w) => w.name)].sort());

      // One recycle for one growth: the new engine, not grown, is left alone.
      const checksLater = POLICY.idleMs! + 10 * POLICY.checkMs!;
      await new Promise((resolve) => setTimeout(resolve, checksLater));
      expect(starts).toHaveBeenCalledTimes(1);
      expect(recycleLines()).toHaveLength(1);
    } finally {
      unsubscribe?.();
      await feed.stop();
    }
  }, 120_000);
});
