import { parentPort, workerData } from 'node:worker_threads';
import type { PGlite, Results } from '@electric-sql/pglite';
import { EngineMemoryGauge, startPGlite } from './pglite-loader';
import type { EngineFsync, EngineReply, EngineRequest, EngineResults, EngineThreadData } from './embedded-engine';
import { engineEndingLogLine, engineErrorFields } from './engine-errors';

/**
 * The embedded store engine's thread: PGlite runs here, so its statements (and each commit's
 * fsync) never hold the server's event loop. It answers the requests of `EmbeddedEngine` in the
 * order they come, one at a time, as PGlite's one session would.
 */
const port = parentPort;
if (!port) throw new Error('the embedded engine runs in a worker thread');
const data = workerData as EngineThreadData;

/** How long each synchronous call into the engine took, and each fsync, since the last reply carried them. */
let calls: number[] = [];
let fsyncs: EngineFsync[] = [];
const listening = new Map<number, () => Promise<void>>();

/** Only what the other side reads: PGlite's results also carry getters and blobs. */
function plain(result: Results): EngineResults {
  return { rows: result.rows as Record<string, unknown>[], fields: result.fields, affectedRows: result.affectedRows };
}

async function answer(db: PGlite, gauge: EngineMemoryGauge, request: EngineRequest): Promise<unknown> {
  switch (request.op) {
    case 'query':
      return plain(await db.query(request.sql, request.params));
    case 'exec':
      return (await db.exec(request.sql)).map(plain);
    case 'listen': {
      const id = request.listener;
      // PGlite calls back while it runs a statement: the notification is posted before that statement's reply.
      const stop = await db.listen(request.channel, (payload) => port!.postMessage({ notify: id, payload } satisfies EngineReply));
      listening.set(id, stop);
      return undefined;
    }
    case 'unlisten': {
      const stop = listening.get(request.listener);
      listening.delete(request.listener);
      await stop?.();
      return undefined;
    }
    case 'close':
      await db.close();
      return undefined;
    case 'memory':
      return gauge.measure();
  }
}

/** Whether the server has been told that the engine started (or that it did not). */
let answeredStart = false;

/**
 * Told at once of a PANIC in PostgreSQL's log: PGlite then loops inside the call that met it
 * and this thread never answers again, but a message posted now still reaches the server,
 * which ends the thread. During the start, the start has failed.
 */
function onServerLog(line: string): void {
  const ended = engineEndingLogLine(line);
  if (!ended) return;
  if (answeredStart) port!.postMessage({ ended } satisfies EngineReply);
  else {
    answeredStart = true;
    port!.postMessage({ started: false, error: ended } satisfies EngineReply);
  }
}

async function serve(): Promise<void> {
  let db: PGlite;
  try {
    db = await startPGlite(data.dir, data.settings, {
      onEngineCall: (seconds) => calls.push(seconds),
      onFsync: (file, seconds) => fsyncs.push({ file, seconds }),
      onServerLog,
      jsonAsText: true,
    });
  } catch (err) {
    if (!answeredStart) port!.postMessage({ started: false, error: engineErrorFields(err) } satisfies EngineReply);
    return;
  }
  if (answeredStart) return; // a PANIC while starting, which PGlite did not report
  port!.postMessage({ started: true } satisfies EngineReply);
  answeredStart = true;

  const gauge = new EngineMemoryGauge(db);
  // One request at a time, in order: the session is PGlite's only one.
  let queue = Promise.resolve();
  port!.on('message', (request: EngineRequest) => {
    queue = queue.then(async () => {
      let reply: EngineReply;
      try {
        reply = { id: request.id, result: await answer(db, gauge, request), inTransaction: !db.closed && db.isInTransaction(), calls, fsyncs };
      } catch (err) {
        reply = { id: request.id, error: engineErrorFields(err), inTransaction: !db.closed && db.isInTransaction(), calls, fsyncs };
      }
      calls = [];
      fsyncs = [];
      port!.postMessage(reply);
    });
  });
}

void serve();
