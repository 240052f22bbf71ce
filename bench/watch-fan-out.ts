import * as https from 'node:https';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { percentile } from './client';

/**
 * Watch fan-out: WATCHERS watches of one namespace's Roles, each on its own TLS connection,
 * opened from a worker thread (so decrypting and parsing a thousand streams does not run on
 * the server's thread), then one create at a time; the delay of every delivery is measured
 * from the moment the create was sent, on one clock (time origin plus the thread's clock).
 * Every watcher must get every event exactly once, or the run fails.
 */
export interface FanOutSpec {
  url: string;
  /** The watch path (with its resourceVersion). */
  path: string;
  tls: { ca: string; cert: string; key: string };
  watchers: number;
}

/** Messages from the watchers' thread. */
type FromWatchers = { kind: 'open' } | { kind: 'delivered'; name: string; at: number[] } | { kind: 'failed'; message: string };

/** The watchers, running in their thread: `expect(name)` resolves with each watcher's arrival time of that object's event. */
export interface FanOutWatchers {
  expect(name: string, timeoutMs: number): Promise<number[]>;
  close(): Promise<void>;
}

/** Absolute time in ms with sub-millisecond precision, comparable between threads. */
export const now = () => performance.timeOrigin + performance.now();

export function openWatchers(spec: FanOutSpec): Promise<FanOutWatchers> {
  const worker = new Worker(__filename, { workerData: spec });
  const delivered = new Map<string, number[]>();
  const waiting = new Map<string, (at: number[]) => void>();
  let failure: Error | undefined;
  return new Promise((resolve, reject) => {
    worker.on('error', reject);
    worker.on('message', (message: FromWatchers) => {
      if (message.kind === 'failed') {
        failure = new Error(message.message);
        reject(failure);
        return;
      }
      if (message.kind === 'open') {
        resolve({
          expect: (name, timeoutMs) =>
            new Promise((done, fail) => {
              if (failure) return fail(failure);
              const got = delivered.get(name);
              if (got) return done(got);
              const timer = setTimeout(() => fail(new Error(`not every watcher got ${name} within ${timeoutMs} ms`)), timeoutMs);
              waiting.set(name, (at) => {
                clearTimeout(timer);
                done(at);
              });
            }),
          close: async () => {
            await worker.terminate();
          },
        });
        return;
      }
      const waiter = waiting.get(message.name);
      if (waiter) waiter(message.at);
      else delivered.set(message.name, message.at);
    });
  });
}

/** In the watchers' thread: opens the watches, reports when every one has its headers, then each object every watcher got. */
async function watch(spec: FanOutSpec): Promise<void> {
  const port = parentPort!;
  const arrivals = new Map<string, number[]>();
  const failed = (message: string) => port.postMessage({ kind: 'failed', message } satisfies FromWatchers);
  const open = (watcher: number) =>
    new Promise<void>((resolve, reject) => {
      const seen = new Set<string>();
      const req = https.request(new URL(spec.path, spec.url), { method: 'GET', ...spec.tls, agent: false }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`watch ${watcher}: ${res.statusCode}`));
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (text: string) => {
          const at = now();
          buffer += text;
          let nl: number;
          while ((nl = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, nl);
            buffer = buffer.slice(nl + 1);
            const event = JSON.parse(line) as { type: string; object: { metadata: { name: string } } };
            const name = event.object.metadata.name;
            if (event.type !== 'ADDED') return failed(`watcher ${watcher}: ${event.type} event for ${name}`);
            if (seen.has(name)) return failed(`watcher ${watcher} got ${name} twice`);
            seen.add(name);
            let at_ = arrivals.get(name);
            if (!at_) arrivals.set(name, (at_ = []));
            at_.push(at);
            if (at_.length === spec.watchers) {
              arrivals.delete(name);
              port.postMessage({ kind: 'delivered', name, at: at_ } satisfies FromWatchers);
            }
          }
        });
        res.on('error', () => undefined);
        resolve();
      });
      req.on('error', reject);
      req.end();
    });
  // Opened in groups, as many clients starting at once would not all connect in the same instant.
  for (let i = 0; i < spec.watchers; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, spec.watchers - i) }, (_, j) => open(i + j)));
  }
  port.postMessage({ kind: 'open' } satisfies FromWatchers);
}

/** The delivery delays of all events, sorted, as p50 / p99 / max. */
export function describeDelays(delays: number[]): string {
  const sorted = [...delays].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms`;
}

if (!isMainThread && parentPort && (workerData as FanOutSpec | undefined)?.watchers) {
  watch(workerData as FanOutSpec).catch((err: Error) => parentPort!.postMessage({ kind: 'failed', message: err.message } satisfies FromWatchers));
}
