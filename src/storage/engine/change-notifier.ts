import { Logger } from '@nestjs/common';
import type { Client } from 'pg';
import type { EmbeddedEngine } from './embedded-engine';

/** The channel every write NOTIFYs in its transaction (delivered on commit); the payload is the revision. */
export const CHANGES_CHANNEL = 'kv_changes';

/** Stops a listener. */
export type Unlisten = () => Promise<void>;

/**
 * Wakes listeners when any server commits a change. A hint, not a log: notifications are
 * missed while a connection is down, so a listener is also called (with an empty revision)
 * once it listens again, and readers poll the log now and then.
 */
export interface ChangeNotifier {
  /** Calls `onChange(revision)` after each committed write until the returned function is called. */
  listen(onChange: (revision: string) => void): Promise<Unlisten>;
  /** Stops every listener (database shutdown). */
  close(): Promise<void>;
}

const RECONNECT_DELAY_MS = 1000;

/**
 * One dedicated connection per listener on PostgreSQL (from `connect`, so on the host the
 * pool uses too: NOTIFYs are delivered on the server that committed), re-established when it
 * drops or when asked to (its server turned read-only: a standby hears no commits).
 */
export class PostgresChangeNotifier implements ChangeNotifier {
  private readonly logger = new Logger('ChangeNotifier');
  private readonly listeners = new Map<Unlisten, () => void>();

  constructor(private readonly connect: () => Promise<Client>) {}

  async listen(onChange: (revision: string) => void): Promise<Unlisten> {
    let client: Client | null = null;
    let retry: NodeJS.Timeout | null = null;
    let stopped = false;

    const connect = async (again: boolean): Promise<void> => {
      const c = await this.connect();
      c.on('notification', (msg) => {
        if (msg.channel === CHANGES_CHANNEL) onChange(msg.payload ?? '');
      });
      c.on('error', (err) => {
        this.logger.warn(`change listener connection lost: ${err.message}`);
        reconnect(c);
      });
      c.on('end', () => reconnect(c));
      if (stopped) {
        await c.end().catch(() => undefined);
        return;
      }
      client = c;
      await c.query(`LISTEN ${CHANGES_CHANNEL}`);
      // What committed while the connection was down sent its NOTIFY to nobody.
      if (again) onChange('');
    };
    const reconnect = (failed: Client | null) => {
      if (stopped || client !== failed || retry) return;
      client = null;
      failed?.end().catch(() => undefined);
      retry = setTimeout(() => {
        retry = null;
        connect(true).catch((err: Error) => {
          this.logger.warn(`change listener cannot reconnect: ${err.message}`);
          reconnect(client);
        });
      }, RECONNECT_DELAY_MS);
      retry.unref();
    };

    const unlisten: Unlisten = async () => {
      if (stopped) return;
      stopped = true;
      this.listeners.delete(unlisten);
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    };
    this.listeners.set(unlisten, () => reconnect(client));
    try {
      await connect(false);
    } catch (err) {
      await unlisten();
      throw err;
    }
    return unlisten;
  }

  /** Every listener connects again (and wakes its feed once connected). */
  reconnect(): void {
    for (const again of this.listeners.values()) again();
  }

  async close(): Promise<void> {
    await Promise.all([...this.listeners.keys()].map((unlisten) => unlisten()));
  }
}

/** PGlite's own LISTEN, issued while holding the session so it never lands inside someone's transaction. */
export class PGliteChangeNotifier implements ChangeNotifier {
  private readonly listeners = new Set<Unlisten>();

  constructor(
    private readonly db: EmbeddedEngine,
    private readonly exclusive: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {}

  async listen(onChange: (revision: string) => void): Promise<Unlisten> {
    const stop = await this.exclusive(() => this.db.listen(CHANGES_CHANNEL, onChange));
    let stopped = false;
    const unlisten: Unlisten = async () => {
      if (stopped) return;
      stopped = true;
      this.listeners.delete(unlisten);
      if (!this.db.closed) await this.exclusive(() => stop());
    };
    this.listeners.add(unlisten);
    return unlisten;
  }

  async close(): Promise<void> {
    await Promise.all([...this.listeners].map((unlisten) => unlisten()));
  }
}
