import type { Response } from 'express';
import { KubeObject, Status } from '../types';
import { ChangeType } from '../../storage/object-store';
import { JSON_WATCH_ENCODER, WatchEventEncoder } from '../codec/watch-encoder';

export type WatchEventType = ChangeType | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject | Status;
}

/** kube closes a watcher that does not keep up; this is how much may wait unread. */
export const MAX_UNREAD_BYTES = 4 * 1024 * 1024;

/**
 * The HTTP side of one watch: a chunked stream of events in the negotiated encoding (JSON
 * documents by default, Table rows or length-prefixed protobuf frames when negotiated). It
 * ends when the client goes away, the timeout passes, the server shuts down, or the client
 * stops reading (a bounded buffer instead of unbounded memory).
 */
export class WatchStream {
  private closedFlag = false;
  private readonly closeHandlers: Array<() => void> = [];

  constructor(
    private readonly res: Response,
    private readonly encoder: WatchEventEncoder = JSON_WATCH_ENCODER,
  ) {
    res.status(200);
    res.setHeader('Content-Type', encoder.contentType);
    res.setHeader('Transfer-Encoding', 'chunked');
    res.setHeader('Cache-Control', 'no-cache, private');
    res.flushHeaders();
    res.on('close', () => this.close());
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  onClose(handler: () => void): void {
    if (this.closedFlag) handler();
    else this.closeHandlers.push(handler);
  }

  /** Writes one event; closes the stream instead when the client is too far behind. */
  send(event: WatchEvent): boolean {
    if (this.closedFlag) return false;
    if (this.res.writableLength > MAX_UNREAD_BYTES) {
      this.close();
      return false;
    }
    this.res.write(this.encoder.encode(event));
    return true;
  }

  close(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    if (!this.res.writableEnded) {
      if (this.res.writableLength > MAX_UNREAD_BYTES) this.res.destroy();
      else this.res.end();
    }
    for (const h of this.closeHandlers.splice(0)) h();
  }
}
