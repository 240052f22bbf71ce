import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/**
 * A CPU profile and a sampled allocation profile of this thread over some measured part of a
 * benchmark, written for Chrome DevTools (`<prefix>.cpuprofile`, `<prefix>.heapprofile`).
 * Allocation sampling keeps the objects minor and major collections freed, so short-lived
 * garbage of each request shows too.
 */
export class ThreadProfile {
  private readonly session = new Session();
  private started = false;

  constructor(private readonly prefix: string) {}

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.session.connect();
    await this.session.post('Profiler.enable');
    await this.session.post('Profiler.setSamplingInterval', { interval: 100 });
    await this.session.post('Profiler.start');
    await this.session.post('HeapProfiler.enable');
    await this.session.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }

  /** Ends both profiles and writes them. */
  async stop(): Promise<void> {
    if (!this.started) return;
    const { profile } = await this.session.post('Profiler.stop');
    const { profile: heap } = await this.session.post('HeapProfiler.stopSampling');
    writeFileSync(`${this.prefix}.cpuprofile`, JSON.stringify(profile));
    writeFileSync(`${this.prefix}.heapprofile`, JSON.stringify(heap));
    this.session.disconnect();
    this.started = false;
  }
}
