import { Logger } from '@nestjs/common';
import { recordAuditError } from '../metrics/audit-metrics';
import { WebhookTransport } from '../webhook-client/webhook-transport';
import { AuditEvent, eventList, legacyEventLine } from './event';

/** Where audit events go (kube's audit.Backend). */
export interface AuditBackend {
  /**
   * Writes or sends (or queues) the events; false when some could not be handled, which
   * fails the request in blocking-strict mode. Never throws.
   */
  processEvents(events: AuditEvent[]): boolean | Promise<boolean>;
  /** Writes or sends what is queued, waits for sends in flight, releases files and connections. */
  shutdown(): Promise<void>;
}

/** A line sink: the rotating file, or stdout for `--audit-log-path=-`. */
export interface LineWriter {
  write(text: string): void;
  close(): void;
}

export const stdoutWriter: LineWriter = {
  write: (text) => void process.stdout.write(text),
  close: () => undefined,
};

export type AuditLogFormat = 'json' | 'legacy';

/** kube's log backend: one line per event, JSON or the legacy text. */
export class LogBackend implements AuditBackend {
  private readonly logger = new Logger('AuditLog');

  constructor(
    private readonly writer: LineWriter,
    private readonly format: AuditLogFormat,
  ) {}

  processEvents(events: AuditEvent[]): boolean {
    let ok = true;
    for (const event of events) {
      try {
        this.writer.write(`${this.format === 'json' ? JSON.stringify(event) : legacyEventLine(event)}\n`);
      } catch (err) {
        ok = false;
        recordAuditError('log');
        this.logger.error(`Error writing audit event: ${(err as Error).message}`);
      }
    }
    return ok;
  }

  async shutdown(): Promise<void> {
    this.writer.close();
  }
}

/** kube's webhook backend: each call POSTs an EventList, retried with backoff on transient failures. */
export class WebhookBackend implements AuditBackend {
  private readonly logger = new Logger('AuditWebhook');

  constructor(
    private readonly transport: WebhookTransport,
    /** Deadline of one batch's delivery, retries included. */
    private readonly timeoutMs: number,
  ) {}

  async processEvents(events: AuditEvent[]): Promise<boolean> {
    try {
      await this.transport.post(JSON.stringify(eventList(events)), this.timeoutMs, () => undefined);
      return true;
    } catch (err) {
      recordAuditError('webhook', events.length);
      this.logger.error(`Error in audit plugin 'webhook' affecting ${events.length} audit events: ${(err as Error).message}`);
      return false;
    }
  }

  async shutdown(): Promise<void> {
    this.transport.close();
  }
}

const DROP_LOG_INTERVAL_MS = 10_000;

/** kube's BatchConfig: how a buffered backend gathers events. */
export interface BatchConfig {
  /** Events held at most; more are dropped (and counted). */
  bufferSize: number;
  /** Events in one batch at most. */
  maxBatchSize: number;
  /** How long a batch waits to fill before it is sent anyway. */
  maxBatchWaitMs: number;
  /** Batches per second at most (0: unlimited), with a burst allowance. */
  throttleQps: number;
  throttleBurst: number;
}

/**
 * kube's buffered backend (`--audit-*-mode=batch`): requests only queue their events; batches
 * go to the delegate one after another. The queue is bounded: when it is full, events are
 * dropped and counted (apiserver_audit_error_total{plugin="buffered"}), so a slow or dead
 * backend never holds up a request.
 */
export class BufferedBackend implements AuditBackend {
  private readonly logger = new Logger('AuditBuffer');
  private queue: AuditEvent[] = [];
  private timer?: NodeJS.Timeout;
  private sending?: Promise<void>;
  private stopping = false;
  private tokens: number;
  private lastRefill = Date.now();
  /** Drops not yet logged: a full buffer is said at most every few seconds, not per event. */
  private unloggedDrops = 0;
  private lastDropLog = 0;

  constructor(
    private readonly delegate: AuditBackend,
    private readonly config: BatchConfig,
  ) {
    this.tokens = config.throttleBurst;
  }

  processEvents(events: AuditEvent[]): boolean {
    if (this.stopping) return false;
    for (let i = 0; i < events.length; i++) {
      if (this.queue.length >= this.config.bufferSize) {
        recordAuditError('buffered', events.length - i);
        this.logDrops(events.length - i);
        this.schedule();
        return false;
      }
      this.queue.push(events[i]);
    }
    this.schedule();
    return true;
  }

  private logDrops(count: number): void {
    this.unloggedDrops += count;
    if (Date.now() - this.lastDropLog < DROP_LOG_INTERVAL_MS) return;
    this.logger.error(`Error in audit plugin 'buffered' affecting ${this.unloggedDrops} audit events: audit buffer queue blocked`);
    this.unloggedDrops = 0;
    this.lastDropLog = Date.now();
  }

  /** Events waiting to be sent. */
  get pending(): number {
    return this.queue.length;
  }

  async shutdown(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.sending;
    while (this.queue.length) await this.delegate.processEvents(this.queue.splice(0, this.config.maxBatchSize));
    await this.delegate.shutdown();
  }

  private schedule(): void {
    if (this.sending || this.stopping || this.queue.length === 0) return;
    if (this.queue.length >= this.config.maxBatchSize || this.config.maxBatchWaitMs <= 0) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      this.sending = this.drain();
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        if (!this.sending && !this.stopping) this.sending = this.drain();
      }, this.config.maxBatchWaitMs);
      this.timer.unref();
    }
  }

  /** Sends full batches back to back, then the rest once (the wait for it is over). */
  private async drain(): Promise<void> {
    // Let the request that queued the events go on before any sending starts.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      do {
        await this.throttle();
        const batch = this.queue.splice(0, this.config.maxBatchSize);
        if (batch.length) await this.delegate.processEvents(batch);
      } while (this.queue.length >= this.config.maxBatchSize && !this.stopping);
    } finally {
      this.sending = undefined;
      this.schedule();
    }
  }

  /** A token bucket: waits until a batch may be sent. */
  private async throttle(): Promise<void> {
    const { throttleQps, throttleBurst } = this.config;
    if (throttleQps <= 0) return;
    for (;;) {
      const now = Date.now();
      this.tokens = Math.min(Math.max(throttleBurst, 1), this.tokens + ((now - this.lastRefill) / 1000) * throttleQps);
      this.lastRefill = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.ceil(((1 - this.tokens) / throttleQps) * 1000)));
    }
  }
}

/** Several backends at once (log and webhook): each gets every event. */
export class UnionBackend implements AuditBackend {
  constructor(private readonly backends: AuditBackend[]) {}

  processEvents(events: AuditEvent[]): boolean | Promise<boolean> {
    const results = this.backends.map((b) => b.processEvents(events));
    if (results.every((r) => typeof r === 'boolean')) return results.every(Boolean);
    return Promise.all(results).then((all) => all.every(Boolean));
  }

  async shutdown(): Promise<void> {
    await Promise.all(this.backends.map((b) => b.shutdown()));
  }
}
