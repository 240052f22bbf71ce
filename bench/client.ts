import * as https from 'node:https';

/** A keep-alive HTTPS client for load: many requests over a few connections. */
export class BenchClient {
  private readonly agent: https.Agent;

  constructor(
    private readonly baseUrl: string,
    private readonly tls: { ca: string; cert?: string; key?: string },
    maxSockets = 32,
  ) {
    this.agent = new https.Agent({ keepAlive: true, maxSockets, ca: tls.ca, cert: tls.cert, key: tls.key });
  }

  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    return this.send(method, path, body, true);
  }

  private send(method: string, path: string, body: unknown, mayRetry: boolean): Promise<{ status: number; body: any }> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const url = new URL(path, this.baseUrl);
    return new Promise((resolve, reject) => {
      const req = https.request(
        url,
        {
          method,
          agent: this.agent,
          headers: payload ? { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) } : {},
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
          });
        },
      );
      // A kept-alive socket the server closed while idle fails on reuse: send once more (Node's advice).
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (mayRetry && req.reusedSocket && err.code === 'ECONNRESET') resolve(this.send(method, path, body, false));
        else reject(err);
      });
      if (payload) req.write(payload);
      req.end();
    });
  }

  /** A raw streaming GET (for watches): calls onLine for each newline-delimited document. */
  stream(path: string, onLine: (line: string) => void): Promise<() => void> {
    const url = new URL(path, this.baseUrl);
    return new Promise((resolve, reject) => {
      const req = https.request(url, { method: 'GET', ca: this.tls.ca, cert: this.tls.cert, key: this.tls.key, agent: false }, (res) => {
        let buffer = '';
        res.on('data', (c: Buffer) => {
          buffer += c.toString('utf8');
          let nl: number;
          while ((nl = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, nl);
            buffer = buffer.slice(nl + 1);
            if (line.trim()) onLine(line);
          }
        });
        res.on('error', () => undefined);
        resolve(() => req.destroy());
      });
      req.on('error', reject);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

/** Runs `work(i)` for every i < total with `concurrency` in flight; answers the rate per second. */
export async function runInFlight(total: number, concurrency: number, work: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await work(next++);
    }),
  );
  return total / ((performance.now() - started) / 1000);
}
