import { Logger } from '@nestjs/common';
import { levelAtLeast } from './audit-context';
import { recordAuditError } from '../metrics/audit-metrics';
import { AuditBackend } from './backends';
import { AuditEvent } from './event';

/** The name errors of this wrapper are counted and logged under (kube's truncate plugin). */
export const TRUNCATE_PLUGIN = 'truncate';

/** The annotation a truncated event carries. */
export const TRUNCATED_ANNOTATION = 'audit.platform.io/truncated';

/** kube's truncate Config (`--audit-*-truncate-max-*`), in bytes of serialized JSON. */
export interface TruncateConfig {
  /** A batch handed to the backend holds events of this many bytes at most (an event alone may not be split). */
  maxBatchSize: number;
  /** An event larger than this loses its request and response objects, and is dropped if still larger. */
  maxEventSize: number;
}

function jsonSize(event: AuditEvent): number {
  return Buffer.byteLength(JSON.stringify(event), 'utf8');
}

/** The event without its request and response objects, annotated as truncated (a copy). */
function truncated(event: AuditEvent): AuditEvent {
  const copy: AuditEvent = { ...event, annotations: { ...event.annotations, [TRUNCATED_ANNOTATION]: 'true' } };
  delete copy.requestObject;
  delete copy.responseObject;
  return copy;
}

/**
 * kube's truncating backend (`--audit-*-truncate-enabled`), around a log or webhook backend:
 * events too large lose their request and response objects, or are dropped (counted as errors
 * of plugin "truncate") when that is not enough; batches are split to stay within the batch
 * size. Dropped events do not fail the request: the result is the delegate's.
 */
export class TruncatingBackend implements AuditBackend {
  private readonly logger = new Logger('AuditTruncate');

  constructor(
    private readonly delegate: AuditBackend,
    private readonly config: TruncateConfig,
  ) {}

  processEvents(events: AuditEvent[]): boolean | Promise<boolean> {
    const batches: AuditEvent[][] = [];
    let batch: AuditEvent[] = [];
    let batchSize = 0;
    let dropped = 0;
    for (const original of events) {
      let event = original;
      let size = jsonSize(event);
      if (size > this.config.maxEventSize && levelAtLeast(event.level, 'Request')) {
        event = truncated(event);
        size = jsonSize(event);
      }
      if (size > this.config.maxEventSize) {
        dropped++;
        continue;
      }
      if (batch.length && batchSize + size > this.config.maxBatchSize) {
        batches.push(batch);
        batch = [];
        batchSize = 0;
      }
      batch.push(event);
      batchSize += size;
    }
    if (batch.length) batches.push(batch);
    if (dropped) {
      recordAuditError(TRUNCATE_PLUGIN, dropped);
      this.logger.error(`Error in audit plugin '${TRUNCATE_PLUGIN}' affecting ${dropped} audit events: event is too large even after truncating`);
    }
    return this.send(batches, 0, true);
  }

  /** Hands the batches over one after another (a backend that answers later is awaited, in order). */
  private send(batches: AuditEvent[][], from: number, ok: boolean): boolean | Promise<boolean> {
    for (let i = from; i < batches.length; i++) {
      const result = this.delegate.processEvents(batches[i]);
      if (typeof result !== 'boolean') return result.then((sent) => this.send(batches, i + 1, ok && sent));
      ok = ok && result;
    }
    return ok;
  }

  shutdown(): Promise<void> {
    return this.delegate.shutdown();
  }
}
