import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EngineCallBuckets, engineCallBuckets, EngineCalls, engineCallsBetween } from './engine-calls';

/**
 * Preloaded (`node --expose-gc -r process-probe.js ...`) into the processes of the process
 * benchmarks: on SIGUSR2 it collects garbage and writes to $BENCH_PROBE_FILE what the process
 * holds: the JavaScript files loaded, Node's built-in modules loaded, heap and RSS, and the
 * calls into the embedded store engine since SIGWINCH (each runs synchronously in the engine's
 * thread; the server's own histogram, apiserver_storage_embedded_call_duration_seconds, times them).
 */
export interface ProbeFigures {
  /** Files in the CommonJS module cache: what the process loaded of its own and its dependencies. */
  modules: number;
  builtins: number;
  heapMiB: number;
  rssMiB: number;
  /** Memory of ArrayBuffers and Buffers, and all memory outside the JavaScript heap V8 knows of (the store engine's WASM memory is in neither). */
  arrayBuffersMiB: number;
  externalMiB: number;
  /** Calls into the embedded engine between SIGWINCH and the probe; absent without an embedded store. */
  engineCalls?: EngineCalls;
}

const REGISTRY = join(__dirname, '..', 'src', 'metrics', 'registry.js');

/** The server's engine-call histogram, if the server loaded it (the bare app must not load it here). */
async function serverEngineCalls(): Promise<EngineCallBuckets | undefined> {
  if (!require.cache[REGISTRY]) return undefined;
  const { metricsRegistry } = require(REGISTRY) as typeof import('../src/metrics/registry');
  return engineCallBuckets(metricsRegistry);
}

const file = process.env.BENCH_PROBE_FILE;
if (file) {
  let windowStart: EngineCallBuckets | undefined;
  // SIGWINCH (ignored by Node otherwise): the window of engine calls starts.
  process.on('SIGWINCH', () => void serverEngineCalls().then((b) => (windowStart = b)));
  process.on('SIGUSR2', () => {
    // Counted before anything below loads more.
    const modules = Object.keys(require.cache).length;
    // Twice: weak references and finalizers let go only on a second collection.
    global.gc?.();
    global.gc?.();
    const m = process.memoryUsage();
    const moduleLoadList = (process as unknown as { moduleLoadList?: string[] }).moduleLoadList ?? [];
    void serverEngineCalls().then((now) => {
      const figures: ProbeFigures = {
        modules,
        builtins: moduleLoadList.length,
        heapMiB: m.heapUsed / 1048576,
        rssMiB: m.rss / 1048576,
        arrayBuffersMiB: m.arrayBuffers / 1048576,
        externalMiB: m.external / 1048576,
        ...(now && windowStart ? { engineCalls: engineCallsBetween(windowStart, now) } : {}),
      };
      writeFileSync(file, JSON.stringify(figures));
    });
  });
}
