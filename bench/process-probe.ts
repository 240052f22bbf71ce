import { writeFileSync } from 'node:fs';

/**
 * Preloaded (`node --expose-gc -r process-probe.js ...`) into the processes of the process
 * benchmarks: on SIGUSR2 it collects garbage and writes to $BENCH_PROBE_FILE what the process
 * holds: the JavaScript files loaded, Node's built-in modules loaded, heap and RSS.
 */
export interface ProbeFigures {
  /** Files in the CommonJS module cache: what the process loaded of its own and its dependencies. */
  modules: number;
  /** Node's own modules and bindings loaded (process.moduleLoadList). */
  builtins: number;
  heapMiB: number;
  rssMiB: number;
}

const file = process.env.BENCH_PROBE_FILE;
if (file) {
  process.on('SIGUSR2', () => {
    // Twice: weak references and finalizers let go only on a second collection.
    global.gc?.();
    global.gc?.();
    const m = process.memoryUsage();
    const moduleLoadList = (process as unknown as { moduleLoadList?: string[] }).moduleLoadList ?? [];
    const figures: ProbeFigures = {
      modules: Object.keys(require.cache).length,
      builtins: moduleLoadList.length,
      heapMiB: m.heapUsed / 1048576,
      rssMiB: m.rss / 1048576,
    };
    writeFileSync(file, JSON.stringify(figures));
  });
}
