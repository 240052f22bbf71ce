import { fork } from 'node:child_process';
import { join } from 'node:path';
import { percentile } from './client';
import type { LivezSample, SamplerSettings } from './livez-sampler';

export type { LivezSample };

/** Wall-clock ms, comparable with the sampler process's timestamps. */
export const wallNow = () => performance.timeOrigin + performance.now();

/** The /livez sampler process (bench/livez-sampler.ts), started and sampling. */
export interface LivezSampler {
  /** Stops it and returns every sample it took. */
  report(): Promise<LivezSample[]>;
  /** Stops it without a report (the benchmark failed). */
  stop(): void;
}

export async function startLivezSampler(settings: SamplerSettings): Promise<LivezSampler> {
  const child = fork(join(__dirname, 'livez-sampler.js'), [], { env: { ...process.env, LIVEZ_SAMPLER_SETTINGS: JSON.stringify(settings) }, stdio: 'inherit' });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the /livez sampler exited ${code}`)));
  });
  return {
    report: () =>
      new Promise((resolve) => {
        child.once('message', (samples) => resolve(samples as LivezSample[]));
        child.send('report');
      }),
    stop: () => {
      if (child.exitCode === null) child.kill();
    },
  };
}

/** The samples that were waiting for an answer at some time inside [from, to]. */
export function samplesDuring(samples: LivezSample[], from: number, to: number): LivezSample[] {
  return samples.filter((s) => s.answeredAt >= from && s.sentAt <= to);
}

export interface LivezFigures {
  samples: number;
  /** The longest a sample waited for its answer, ms. */
  worstMs: number;
  p50Ms: number;
  p99Ms: number;
  /** Samples not answered 200. */
  failed: number;
}

export function livezFigures(samples: LivezSample[]): LivezFigures {
  const waits = samples.map((s) => s.answeredAt - s.sentAt).sort((a, b) => a - b);
  return {
    samples: samples.length,
    worstMs: waits.length ? waits[waits.length - 1] : NaN,
    p50Ms: percentile(waits, 50),
    p99Ms: percentile(waits, 99),
    failed: samples.filter((s) => s.status !== 200).length,
  };
}
