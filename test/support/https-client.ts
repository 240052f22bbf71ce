import * as https from 'node:https';

export interface ClientIdentity {
  /** PEM client certificate and key (x509 authentication). */
  cert?: string;
  key?: string;
  /** Bearer token. */
  token?: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Header names and values as sent, repeated headers (Warning) one entry each. */
  rawHeaders: string[];
  text: string;
  /** The body's bytes as received (binary bodies: protobuf, gzip). */
  bytes: Buffer;
  /** The body parsed as JSON when it is JSON, else undefined. */
  body: any;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is (Buffer/string) instead of JSON-encoding `body`. */
  raw?: Buffer | string;
  contentType?: string;
  headers?: Record<string, string>;
  as?: ClientIdentity;
}

/** A minimal HTTPS client for e2e tests: trusts the server's CA, can present a client cert. */
export class HttpsClient {
  constructor(
    readonly baseUrl: string,
    private readonly caPem: string,
    private readonly defaultIdentity: ClientIdentity = {},
  ) {}

  withIdentity(identity: ClientIdentity): HttpsClient {
    return new HttpsClient(this.baseUrl, this.caPem, identity);
  }

  get(path: string, opts: RequestOptions = {}) {
    return this.request('GET', path, opts);
  }
  post(path: string, body: unknown, opts: RequestOptions = {}) {
    return this.request('POST', path, { ...opts, body });
  }
  put(path: string, body: unknown, opts: RequestOptions = {}) {
    return this.request('PUT', path, { ...opts, body });
  }
  patch(path: string, body: unknown, contentType: string, opts: RequestOptions = {}) {
    return this.request('PATCH', path, { ...opts, body, contentType });
  }
  delete(path: string, opts: RequestOptions = {}) {
    return this.request('DELETE', path, opts);
  }

  /** Opens a watch and collects its newline-delimited JSON events. */
  stream(path: string, identity?: ClientIdentity): Promise<WatchHandle> {
    const id = identity ?? this.defaultIdentity;
    const url = new URL(path, this.baseUrl);
    return new Promise((resolve, reject) => {
      const req = https.request(url, { method: 'GET', ca: this.caPem, cert: id.cert, key: id.key, agent: false, headers: id.token ? { Authorization: `Bearer ${id.token}` } : {} }, (res) => {
        const events: any[] = [];
        const waiters: Array<() => void> = [];
        let buffer = '';
        let endResolve!: () => void;
        const ended = new Promise<void>((r) => (endResolve = r));
        res.on('data', (chunk: Buffer) => {
          buffer += chunk.toString('utf8');
          let nl: number;
          while ((nl = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, nl).trim();
            buffer = buffer.slice(nl + 1);
            if (line) events.push(JSON.parse(line));
          }
          waiters.splice(0).forEach((w) => w());
        });
        res.on('end', () => {
          if (buffer.trim()) events.push(JSON.parse(buffer));
          endResolve();
          waiters.splice(0).forEach((w) => w());
        });
        res.on('error', () => endResolve());
        resolve({
          status: res.statusCode ?? 0,
          events,
          ended,
          close: () => req.destroy(),
          waitFor(n: number, timeoutMs = 8000) {
            return new Promise((ok, fail) => {
              const deadline = setTimeout(() => fail(new Error(`timed out waiting for ${n} events; have ${JSON.stringify(events.map((e) => e.type))}`)), timeoutMs);
              const check = () => {
                if (events.length >= n) {
                  clearTimeout(deadline);
                  ok(events.slice(0, n));
                } else waiters.push(check);
              };
              check();
            });
          },
        });
      });
      req.on('error', reject);
      req.end();
    });
}

  request(method: string, path: string, opts: RequestOptions = {}): Promise<HttpResponse> {
    const identity = opts.as ?? this.defaultIdentity;
    const payload =
      opts.raw !== undefined ? Buffer.from(opts.raw) : opts.body !== undefined ? Buffer.from(JSON.stringify(opts.body)) : undefined;
    const headers: Record<string, string> = { Accept: 'application/json', ...(opts.headers ?? {}) };
    if (payload) {
      headers['Content-Type'] = opts.contentType ?? 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    if (identity.token) headers.Authorization = `Bearer ${identity.token}`;
    const url = new URL(path, this.baseUrl);
    return new Promise((resolve, reject) => {
      const req = https.request(
        url,
        { method, headers, ca: this.caPem, cert: identity.cert, key: identity.key, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const bytes = Buffer.concat(chunks);
            const text = bytes.toString('utf8');
            let body: any;
            try {
              body = text ? JSON.parse(text) : undefined;
            } catch {
              body = undefined;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, text, bytes, body });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      if (payload) req.write(payload);
      req.end();
    });
  }
}

export interface WatchHandle {
  status: number;
  /** Events received so far, in order. */
  events: any[];
  /** Resolves when at least `n` events arrived (rejects after the timeout). */
  waitFor(n: number, timeoutMs?: number): Promise<any[]>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

