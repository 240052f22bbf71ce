import { Logger } from '@nestjs/common';
import { Client, ClientConfig } from 'pg';
import { parsePostgresUrl, PostgresHost, PostgresUrl, TargetSessionAttrs } from './postgres-url';
import { storageFailureOf } from './storage-errors';

/**
 * Every connection the server makes to PostgreSQL (the pool's, the change listener's, the
 * leader election's, the migrations'): to a host chosen as libpq chooses (the hosts of the URL
 * in order, the first whose session is what `target_session_attrs` asks for), and dropped
 * once the server they reach is found read-only.
 *
 * node-postgres has neither several hosts nor target_session_attrs (brianc/node-postgres#2781;
 * its native binding rejects the parameter too, node-libpq#76), so the choice is made here: a
 * short-lived connection tries each host in turn, the host found is kept for the connections
 * that follow, and each new connection checks its own session once more, since a role can
 * change between the two (a failover). The host is chosen again when a connection to it fails,
 * when a session there is no longer acceptable, and when a write finds the server read-only.
 */

/** What a session is, as libpq asks it (`SHOW transaction_read_only`, `pg_is_in_recovery()`). */
export interface SessionState {
  inRecovery: boolean;
  readOnly: boolean;
}

const SESSION_STATE = `SELECT pg_catalog.pg_is_in_recovery() AS in_recovery, pg_catalog.current_setting('transaction_read_only') = 'on' AS read_only`;

/** Whether a session suits `attrs`; `prefer-standby` takes standbys first and anything after (`fallback`). */
export function acceptableSession(attrs: TargetSessionAttrs, state: SessionState, fallback = false): boolean {
  switch (attrs) {
    case 'any':
      return true;
    case 'read-write':
      return !state.readOnly;
    case 'read-only':
      return state.readOnly;
    case 'primary':
      return !state.inRecovery;
    case 'standby':
      return state.inRecovery;
    case 'prefer-standby':
      return fallback || state.inRecovery;
  }
}

const describeState = (s: SessionState) => (s.inRecovery ? 'a standby' : s.readOnly ? 'read-only' : 'read-write');

/**
 * No host of the URL would do. SQLSTATE 08001 (sqlclient_unable_to_establish_sqlconnection),
 * libpq's answer in the same case: an outage (503), not a failure of the request.
 */
export class NoAcceptableHostError extends Error {
  readonly code = '08001';
}

/** Reads what a connected session is. */
export async function sessionState(client: Client): Promise<SessionState> {
  const { rows } = await client.query<{ in_recovery: boolean; read_only: boolean }>(SESSION_STATE);
  return { inRecovery: rows[0].in_recovery, readOnly: rows[0].read_only };
}

export interface PostgresConnectionSettings {
  /** Work in this schema (a search_path for every session). */
  schema?: string;
  /** How long one host may take to accept a connection while hosts are tried in turn. */
  hostTimeoutMs?: number;
}

/** A host was found read-only: connections of older generations are to be let go of. */
export type ReadOnlyListener = (host: PostgresHost) => void;

const HOST_TIMEOUT_MS = 5_000;

/** A client of ours: it knows the host it reached and the generation it was opened in. */
interface SelectingClient extends Client {
  readonly target?: PostgresHost;
  readonly generation: number;
}

export class PostgresConnections {
  private readonly logger = new Logger('PostgresConnections');
  readonly url: PostgresUrl;
  /** Connection settings common to every session (search_path). */
  readonly baseConfig: ClientConfig;
  /** The class pools make clients of (TypeORM's `extra.Client`). */
  readonly Client: new (config?: ClientConfig) => Client;
  private chosen: PostgresHost | null = null;
  private choosing: Promise<PostgresHost> | null = null;
  private lastLogged: PostgresHost | null = null;
  private generationCounter = 0;
  private readonly readOnlyListeners = new Set<ReadOnlyListener>();
  private readonly hostTimeoutMs: number;

  constructor(databaseUrl: string, settings: PostgresConnectionSettings = {}) {
    this.url = parsePostgresUrl(databaseUrl);
    this.hostTimeoutMs = settings.hostTimeoutMs ?? HOST_TIMEOUT_MS;
    this.baseConfig = settings.schema ? { options: `-c search_path=${settings.schema}` } : {};
    this.Client = this.clientClass();
  }

  /** Whether sessions are checked against target_session_attrs (not for `any`). */
  get checksSessions(): boolean {
    return this.url.targetSessionAttrs !== 'any';
  }

  /** The generation of connections: it moves on each time a server is found read-only. */
  get generation(): number {
    return this.generationCounter;
  }

  /** A single-host URL for tools that read URLs themselves (TypeORM's options); connections still choose their host. */
  firstHostUrl(): string {
    return this.url.forHost(this.url.hosts[0]);
  }

  /** The host connections go to now, if one was chosen (for messages). */
  currentHost(): string | undefined {
    const host = this.chosen ?? (this.url.hosts.length === 1 ? this.url.hosts[0] : undefined);
    return host && `${host.host}:${host.port}`;
  }

  /** A connected session of its own (not pooled), on a host that suits target_session_attrs. */
  async connect(config: ClientConfig = {}): Promise<Client> {
    const client = new this.Client({ ...config });
    try {
      await client.connect();
    } catch (err) {
      // A client whose connection failed may still hold a socket.
      await client.end().catch(() => undefined);
      throw err;
    }
    return client;
  }

  onReadOnly(listener: ReadOnlyListener): () => void {
    this.readOnlyListeners.add(listener);
    return () => this.readOnlyListeners.delete(listener);
  }

  /**
   * A session of `client` met a read-only server (a write refused with 25006, or a demoted
   * primary): the host is chosen again, and every connection opened so far is to be dropped
   * and opened again (the listeners retire the pools). Once per generation.
   */
  foundReadOnly(client: { target?: PostgresHost; generation: number }): void {
    if (client.generation !== this.generationCounter) return;
    this.generationCounter++;
    if (client.target) this.forget(client.target);
    const where = client.target ? `${client.target.host}:${client.target.port}` : this.url.describe();
    this.logger.warn(`the PostgreSQL server at ${where} is read-only (a standby, or a primary demoted or set read-only): its connections are closed and opened again`);
    for (const listener of this.readOnlyListeners) listener(client.target ?? this.url.hosts[0]);
  }

  /** The host new connections go to: the one found last, else the first that suits (tried in order). */
  chooseHost(): Promise<PostgresHost> | PostgresHost {
    if (this.chosen) return this.chosen;
    // One host and nothing to check: libpq connects there without asking anything.
    if (this.url.hosts.length === 1 && !this.checksSessions) return this.url.hosts[0];
    this.choosing ??= this.search().finally(() => (this.choosing = null));
    return this.choosing;
  }

  /** Connections to `host` failed or it no longer suits: the next connection tries the hosts again. */
  forget(host: PostgresHost): void {
    if (this.chosen === host) this.chosen = null;
  }

  private async search(): Promise<PostgresHost> {
    const attrs = this.url.targetSessionAttrs;
    const reasons: string[] = [];
    for (const fallback of attrs === 'prefer-standby' ? [false, true] : [false]) {
      for (const host of this.url.hosts) {
        const where = `${host.host}:${host.port}`;
        const probe = new Client({
          ...this.baseConfig,
          connectionString: this.url.forHost(host),
          connectionTimeoutMillis: this.hostTimeoutMs,
          query_timeout: this.hostTimeoutMs,
        });
        // A probe that breaks after its answer must not crash the process.
        probe.on('error', () => undefined);
        try {
          await probe.connect();
          const state = this.checksSessions ? await sessionState(probe) : undefined;
          if (state && !acceptableSession(attrs, state, fallback)) {
            reasons.push(`${where}: ${describeState(state)}`);
            continue;
          }
          this.chosen = host;
          if (this.lastLogged !== host && this.url.hosts.length > 1) {
            this.logger.log(`connecting to PostgreSQL at ${where}${state ? ` (${describeState(state)}, target_session_attrs=${attrs})` : ''}`);
          }
          this.lastLogged = host;
          return host;
        } catch (err) {
          reasons.push(`${where}: ${(err as Error).message || (err as NodeJS.ErrnoException).code}`);
        } finally {
          await probe.end().catch(() => undefined);
        }
      }
    }
    throw new NoAcceptableHostError(`no PostgreSQL host of ${this.url.describe()} suits target_session_attrs=${attrs} (${reasons.join('; ')})`);
  }

  /** The Client subclass: chooses its host when it connects and reports read-only servers. */
  private clientClass(): new (config?: ClientConfig) => Client {
    const connections = this;
    const placeholder = this.firstHostUrl();
    return class extends Client implements SelectingClient {
      target?: PostgresHost;
      generation = connections.generationCounter;

      constructor(config: ClientConfig = {}) {
        // The host is set at connect; the URL given here only carries user, database and options.
        super({ ...connections.baseConfig, ...config, connectionString: placeholder });
        // node-postgres emits a session's failure as an 'error' event even when no statement is
        // running (a server that dies sends every session a FATAL message): with no listener
        // that would end the process. Its users listen while they hold it; in between (being
        // closed, checked for its role, handed over) this one notes it. Its statements fail anyway.
        this.on('error', (err: Error) => {
          if (this.listenerCount('error') === 1) connections.logger.warn(`a PostgreSQL session failed while unused: ${err.message}`);
        });
      }

      connect(): Promise<Client>;
      connect(callback: (err: Error | null, client?: Client) => void): void;
      connect(callback?: (err: Error | null, client?: Client) => void): Promise<Client> | void {
        const connecting = this.connectToChosenHost();
        if (!callback) return connecting;
        connecting.then(
          (client) => callback(null, client),
          (err: Error) => callback(err),
        );
      }

      private async connectToChosenHost(): Promise<Client> {
        const host = await connections.chooseHost();
        this.target = host;
        this.generation = connections.generationCounter;
        this.host = host.host;
        this.port = host.port;
        const parameters = (this as unknown as { connectionParameters: { host: string; port: number } }).connectionParameters;
        parameters.host = host.host;
        parameters.port = host.port;
        try {
          await super.connect();
        } catch (err) {
          connections.forget(host);
          throw err;
        }
        if (!connections.checksSessions) return this;
        let state: SessionState;
        try {
          state = await sessionState(this);
        } catch (err) {
          connections.forget(host);
          await this.end().catch(() => undefined);
          throw err;
        }
        // prefer-standby's preference was the host's choice; any session of it does.
        if (acceptableSession(connections.url.targetSessionAttrs, state, true)) return this;
        // The role changed since the host was chosen (a failover under way): choose again.
        connections.forget(host);
        await this.end().catch(() => undefined);
        throw new NoAcceptableHostError(`the PostgreSQL server at ${host.host}:${host.port} is ${describeState(state)} now, not ${connections.url.targetSessionAttrs}`);
      }

      // Every statement's failure is looked at: a server that refuses writes is left.
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      query(...args: any[]): any {
        const last: unknown = args[args.length - 1];
        if (typeof last === 'function') {
          args[args.length - 1] = (err: Error | null, result: unknown) => {
            if (err) this.observe(err);
            (last as (err: Error | null, result: unknown) => void)(err, result);
          };
          return (Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
        }
        const result = (Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
        if (result instanceof Promise) result.then(undefined, (err: Error) => this.observe(err));
        return result;
      }

      private observe(err: Error): void {
        const failure = storageFailureOf(err);
        if (failure === 'read-only') connections.foundReadOnly(this);
        else if (failure === 'unavailable' && this.target) connections.forget(this.target);
      }
    };
  }
}
