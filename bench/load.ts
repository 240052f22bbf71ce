import * as https from 'node:https';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { percentile } from './client';

/**
 * Closed-loop HTTPS load from a worker thread, so the load generator does not share the
 * server's event loop: `connections` keep-alive connections each send the same request
 * back to back for a warm-up and then `durationMs`; figures are requests per second and
 * latency percentiles of the measured part.
 */
export interface LoadSpec {
  url: string;
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
  tls: { ca: string; cert?: string; key?: string };
  connections: number;
  durationMs: number;
  /** Status every answer must have; anything else counts as an error. */
  expectStatus: number;
  /** Text every answer's body must contain (the answer checked, not only its status). */
  expectBody?: string;
  /** Load sent before measuring starts, so both sides run optimized code (default 3 s). */
  warmupMs?: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  firstError?: string;
}

/** Runs the load in a worker thread and resolves with its figures. */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(__filename, { workerData: spec });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

async function generate(spec: LoadSpec): Promise<LoadResult> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: spec.connections, ca: spec.tls.ca, cert: spec.tls.cert, key: spec.tls.key });
  const payload = spec.body === undefined ? undefined : Buffer.from(spec.body);
  const headers = { ...(spec.headers ?? {}), ...(payload ? { 'Content-Length': String(payload.length) } : {}) };
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const warmupEnds = Date.now() + (spec.warmupMs ?? 3000);
  const ends = warmupEnds + spec.durationMs;

  const once = () =>
    new Promise<void>((resolve) => {
      const started = process.hrtime.bigint();
      const req = https.request(new URL(spec.path, spec.url), { method: spec.method, agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const now = Date.now();
          if (now >= warmupEnds && now < ends) {
            latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
            const wrongBody = spec.expectBody !== undefined && !Buffer.concat(chunks).includes(spec.expectBody);
            if (res.statusCode !== spec.expectStatus || wrongBody) {
              errors++;
              firstError ??= `${res.statusCode}: ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`;
            }
          }
          resolve();
        });
      });
      req.on('error', (err) => {
        errors++;
        firstError ??= err.message;
        resolve();
      });
      if (payload) req.write(payload);
      req.end();
    });

  await Promise.all(
    Array.from({ length: spec.connections }, async () => {
      while (Date.now() < ends) await once();
    }),
  );
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    perSecond: latencies.length / (spec.durationMs / 1000),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    ...(firstError ? { firstError } : {}),
  };
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  void generate(workerData as LoadSpec).then((result) => port.postMessage(result));
}
