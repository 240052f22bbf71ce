import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { GCProfiler } from 'node:v8';
import { LoadResult, LoadSpec, runLoad } from './load';

/** What the server's thread spent per request while one load ran against it alone. */
export interface MainThreadCost {
  /**
   * CPU time of the main thread, microseconds per request (Linux: the scheduler's counter of
   * the thread; elsewhere its event-loop busy time, which a loaded machine inflates).
   */
  busyUs: number;
  /** Time in garbage collection, microseconds per request. */
  gcUs: number;
  /** Bytes allocated on the JavaScript heap per request: what the collections freed plus the heap's growth. */
  allocatedBytes: number;
}

/**
 * Runs a load (from its worker thread) against a server in this process and measures this
 * thread's cost per request alongside: the servers of the benchmarks run on the main thread,
 * so its busy time, collections and allocations are theirs (plus the idle benchmark itself).
 * The load starts measuring at once (warmupMs 0), so the figures cover the same window.
 */
export async function runMeasuredLoad(spec: LoadSpec): Promise<LoadResult & MainThreadCost> {
  const gc = new GCProfiler();
  const heapBefore = process.memoryUsage().heapUsed;
  gc.start();
  const elu = performance.eventLoopUtilization();
  const cpuBefore = mainThreadCpuMs();
  const result = await runLoad({ ...spec, warmupMs: 0 });
  const cpuAfter = mainThreadCpuMs();
  const busyMs = cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : performance.eventLoopUtilization(elu).active;
  const heapAfter = process.memoryUsage().heapUsed;
  const { statistics } = gc.stop();
  const requests = Math.max(result.requests, 1);
  let freed = 0;
  let gcUs = 0;
  for (const s of statistics) {
    freed += s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize;
    gcUs += s.cost;
  }
  return {
    ...result,
    busyUs: (busyMs * 1000) / requests,
    gcUs: gcUs / requests,
    allocatedBytes: Math.max(0, freed + heapAfter - heapBefore) / requests,
  };
}

/**
 * The main thread's CPU time in ms, from the scheduler's nanosecond counter (the load's
 * worker thread is a thread of this process too, so process.cpuUsage() would count it);
 * undefined off Linux.
 */
export function mainThreadCpuMs(): number | undefined {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}

/** The median of some figures (rounds alternate, so a slow spell hits every side alike). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** One line of per-request cost: busy time, GC time and allocation. */
export function describeCost(label: string, costs: MainThreadCost[]): string {
  const busy = median(costs.map((c) => c.busyUs));
  const gc = median(costs.map((c) => c.gcUs));
  const kib = median(costs.map((c) => c.allocatedBytes)) / 1024;
  return `${label}: main-thread CPU ${busy.toFixed(0)} us/request, GC ${gc.toFixed(1)} us/request, allocated ${kib.toFixed(1)} KiB/request`;
}
