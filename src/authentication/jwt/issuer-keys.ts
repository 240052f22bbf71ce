import { Logger } from '@nestjs/common';
import { Agent, request } from 'node:https';
import type { JSONWebKeySet } from 'jose';
import { Jose, loadJose } from '../serviceaccount/jose';

/** The largest discovery document or key set read from an issuer. */
const MAX_RESPONSE_BYTES = 1024 * 1024;
const FETCH_TIMEOUT_MS = 10_000;
/** kube retries an issuer it could not reach every 10 s. */
const RETRY_INTERVAL_MS = 10_000;
/** A token naming an unknown key refetches the key set at most this often (never once per request). */
const MIN_REFRESH_INTERVAL_MS = 10_000;

type KeyResolver = ReturnType<Jose['createLocalJWKSet']>;

/** A GET of a JSON document over HTTPS, trusting `ca` (PEM) or the system roots. */
export function fetchJson(url: string, agent: Agent): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', agent, headers: { Accept: 'application/json' }, timeout: FETCH_TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) req.destroy(new Error(`response from ${url} is larger than ${MAX_RESPONSE_BYTES} bytes`));
        else chunks.push(chunk);
      });
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) return reject(new Error(`${res.statusCode} ${res.statusMessage ?? ''}: ${body.slice(0, 200)}`.trim()));
        try {
          resolve(JSON.parse(body));
        } catch (err) {
          reject(new Error(`failed to decode response from ${url}: ${(err as Error).message}`));
        }
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout after ${FETCH_TIMEOUT_MS}ms fetching ${url}`)));
    req.on('error', reject);
    req.end();
  });
}

export interface IssuerKeysOptions {
  /** The issuer URL: the discovery document's `issuer` must equal it. */
  issuer: string;
  /** Where the discovery document is; default `<issuer>/.well-known/openid-configuration`. */
  discoveryURL?: string;
  /** PEM authorities for the issuer's TLS certificate; the system roots when unset. */
  certificateAuthority?: string;
}

/**
 * One issuer's signing keys (go-oidc's remote key set, as kube uses it): discovery and the key
 * set are fetched in the background from start, retried until they load, and fetched again
 * only when a token names a key that is not known (at most every 10 s). Requests never wait
 * for an issuer that was never reached: its tokens fail until the keys are there.
 */
export class IssuerKeys {
  private readonly logger = new Logger('OIDC');
  private readonly agent: Agent;
  private jose: Jose | undefined;
  private resolver: KeyResolver | undefined;
  private jwksUri: string | undefined;
  private lastUnknownKeyRefresh = 0;
  private refreshing: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  /** Why the keys are not loaded (for the rejection's message). */
  private problem = 'keys not loaded yet';

  constructor(private readonly options: IssuerKeysOptions) {
    this.agent = new Agent({ keepAlive: true, maxSockets: 2, ...(options.certificateAuthority ? { ca: options.certificateAuthority } : {}) });
  }

  /** Starts loading; resolves when the first attempt has ended (keys loaded or not). */
  start(): Promise<void> {
    return this.refresh();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
    this.agent.destroy();
  }

  get loaded(): boolean {
    return this.resolver !== undefined;
  }

  get loadProblem(): string {
    return this.problem;
  }

  /**
   * The key set's resolver, or undefined when it has never loaded. While the first load is
   * under way a token waits for it (bounded by the fetch timeout) rather than failing at once.
   */
  async current(): Promise<KeyResolver | undefined> {
    if (!this.resolver && this.refreshing) await this.refreshing;
    return this.resolver;
  }

  /** Fetches the key set again unless it was fetched very recently (a token named an unknown key). */
  refreshForUnknownKey(): Promise<void> {
    if (Date.now() - this.lastUnknownKeyRefresh < MIN_REFRESH_INTERVAL_MS) return this.refreshing ?? Promise.resolve();
    this.lastUnknownKeyRefresh = Date.now();
    return this.refresh();
  }

  private refresh(): Promise<void> {
    this.refreshing ??= this.fetchKeys().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async fetchKeys(): Promise<void> {
    if (this.closed) return;
    try {
      this.jose ??= await loadJose();
      this.jwksUri ??= await this.discover();
      const jwks = (await fetchJson(this.jwksUri, this.agent)) as JSONWebKeySet;
      if (!jwks || !Array.isArray(jwks.keys)) throw new Error(`key set at ${this.jwksUri} has no keys`);
      this.resolver = this.jose.createLocalJWKSet(jwks);
      this.problem = '';
    } catch (err) {
      this.problem = (err as Error).message;
      this.logger.error(`oidc authenticator: initializing plugin for ${this.options.issuer}: ${this.problem}`);
      if (!this.resolver && !this.closed) {
        clearTimeout(this.retry);
        this.retry = setTimeout(() => void this.refresh(), RETRY_INTERVAL_MS);
        this.retry.unref();
      }
    }
  }

  /** The discovery document's jwks_uri, after checking it is about this issuer. */
  private async discover(): Promise<string> {
    const url = this.options.discoveryURL || `${this.options.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const doc = (await fetchJson(url, this.agent)) as { issuer?: unknown; jwks_uri?: unknown };
    if (doc?.issuer !== this.options.issuer) {
      throw new Error(`oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(this.options.issuer)} got ${JSON.stringify(doc?.issuer)}`);
    }
    if (typeof doc.jwks_uri !== 'string' || !doc.jwks_uri) throw new Error('oidc: discovery document has no jwks_uri');
    return doc.jwks_uri;
  }
}
