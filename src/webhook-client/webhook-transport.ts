import * as http from 'node:http';
import * as https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebhookResult } from '../metrics/authorization-metrics';
import { WebhookConnection } from './kubeconfig';

/** kube's webhook retry backoff (DefaultRetryBackoffWithInitialDelay(500ms)): 5 tries, x1.5, 20% jitter. */
export interface RetryBackoff {
  initialDelayMs: number;
  factor: number;
  jitter: number;
  steps: number;
}

export const DEFAULT_RETRY_BACKOFF: RetryBackoff = { initialDelayMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };

/** A failed call; `retriable` as kube's DefaultShouldRetry judges it. */
export class WebhookCallError extends Error {
  constructor(
    message: string,
    readonly result: Exclude<WebhookResult, 'success'>,
    readonly retriable: boolean,
  ) {
    super(message);
  }
}

/** client-go's texts for a non-2xx answer without a Status body. */
function statusMessage(code: number, body: string): string {
  const known: Record<number, string> = {
    400: 'the server rejected our request for an unknown reason',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'the server could not find the requested resource',
    405: 'the server does not allow this method on the requested resource',
    409: 'the server reported a conflict',
    413: 'the server rejected our request because it was too large',
    429: 'the server has received too many requests and has asked us to try again later',
    503: 'the server is currently unable to handle the request',
    504: 'the server was unable to return a response in the time allotted, but may still be processing the request',
  };
  try {
    const status = JSON.parse(body) as { kind?: string; message?: string };
    if (status.kind === 'Status' && status.message) return status.message;
  } catch {
    // not a Status: fall through to the generic texts
  }
  if (known[code]) return known[code];
  const text = body.length > 1024 ? `${body.slice(0, 1024)}...` : body;
  if (code >= 500) return `an error on the server (${JSON.stringify(text)}) has prevented the request from succeeding`;
  return `the server responded with the status code ${code} but did not return more information`;
}

/** kube retries connection resets, 500, 504, 429, and any 5xx that asks for a delay (Retry-After). */
function retriableStatus(code: number, retryAfter: string | undefined): boolean {
  return code === 429 || code === 500 || code === 504 || (code >= 500 && retryAfter !== undefined);
}

const isConnectionReset = (err: NodeJS.ErrnoException) => err.code === 'ECONNRESET' || err.code === 'EPIPE' || /socket hang up/.test(err.message);

/**
 * POSTs JSON to the webhook's URL (exactly as the kubeconfig names it) over a keep-alive
 * connection, retrying transient failures with kube's backoff, all within one deadline.
 */
export class WebhookTransport {
  private readonly agent: http.Agent;

  constructor(
    private readonly connection: WebhookConnection,
    private readonly backoff: RetryBackoff = DEFAULT_RETRY_BACKOFF,
    /** Called after every round trip, for metrics. */
    private readonly onAttempt: (result: WebhookResult, seconds: number) => void = () => undefined,
  ) {
    const secure = connection.server.protocol === 'https:';
    this.agent = secure
      ? new https.Agent({
          keepAlive: true,
          ca: connection.certificateAuthority,
          cert: connection.clientCertificate,
          key: connection.clientKey,
          rejectUnauthorized: !connection.insecureSkipTlsVerify,
          servername: connection.tlsServerName,
        })
      : new http.Agent({ keepAlive: true });
  }

  /**
   * Sends the body and decodes the 2xx answer with `decode` (a decode failure is a failed,
   * non-retried call, as a malformed answer is in kube); throws WebhookCallError.
   */
  async post<T>(body: string, timeoutMs: number, decode: (text: string) => T): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let delay = this.backoff.initialDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(body, Math.max(1, deadline - Date.now()), decode);
      } catch (err) {
        const failure = err as WebhookCallError;
        if (!failure.retriable || attempt >= this.backoff.steps) throw failure;
        const wait = delay * (1 + Math.random() * this.backoff.jitter);
        if (Date.now() + wait >= deadline) throw failure;
        await sleep(wait);
        delay *= this.backoff.factor;
      }
    }
  }

  close(): void {
    this.agent.destroy();
  }

  private attempt<T>(body: string, timeoutMs: number, decode: (text: string) => T): Promise<T> {
    const url = this.connection.server;
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      Accept: 'application/json',
      'Content-Length': String(Buffer.byteLength(body)),
      'User-Agent': 'platform-authz-apiserver',
    };
    if (this.connection.token) headers.Authorization = `Bearer ${this.connection.token}`;
    else if (this.connection.username !== undefined) {
      headers.Authorization = `Basic ${Buffer.from(`${this.connection.username}:${this.connection.password ?? ''}`).toString('base64')}`;
    }
    const started = performance.now();
    const finish = (result: WebhookResult) => this.onAttempt(result, (performance.now() - started) / 1000);
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const fail = (error: WebhookCallError) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        finish(error.result);
        reject(error);
      };
      const request = transport.request(url, { method: 'POST', agent: this.agent, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', (err) => fail(new WebhookCallError(`Post ${JSON.stringify(url.href)}: ${err.message}`, 'error', isConnectionReset(err))));
        response.on('end', () => {
          if (settled) return;
          const text = Buffer.concat(chunks).toString('utf8');
          const code = response.statusCode ?? 0;
          if (code >= 200 && code < 300) {
            let decoded: T;
            try {
              decoded = decode(text);
            } catch (err) {
              fail(new WebhookCallError((err as Error).message, 'error', false));
              return;
            }
            settled = true;
            clearTimeout(timer);
            finish('success');
            resolve(decoded);
            return;
          }
          const retryAfter = response.headers['retry-after'];
          const result = code === 504 ? 'timeout' : 'error';
          fail(new WebhookCallError(statusMessage(code, text), result, retriableStatus(code, typeof retryAfter === 'string' ? retryAfter : undefined)));
        });
      });
      const timer = setTimeout(() => {
        fail(new WebhookCallError(`Post ${JSON.stringify(url.href)}: context deadline exceeded`, 'timeout', false));
        request.destroy();
      }, timeoutMs);
      request.on('error', (err: NodeJS.ErrnoException) => {
        fail(new WebhookCallError(`Post ${JSON.stringify(url.href)}: ${err.message}`, 'error', isConnectionReset(err)));
      });
      request.end(body);
    });
  }
}
