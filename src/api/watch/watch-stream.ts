import type { Response } from 'express';
import { KubeObject, Status } from '../types';
import { ChangeType } from '../../storage/object-store';

export type WatchEventType = ChangeType | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject | Status;
}

/** kube closes a watcher that does not keep up; this is how much may wait unread. */
export const MAX_UNREAD_BYTES = 4 * 1024 * 1024;

/**
 * The HTTP side of one watch: a chunked stream of JSON event documents. It ends when the
 * client goes away, the timeout passes, the server shuts down, or the client stops reading
 * (a bounded buffer instead of unbounded memory).
 */
export class WatchStream {
  private closedFlag = false;
  private readonly closeHandlers: Array<() => void> = [];

  constructor(private readonly res: Response) {
    res.status(200);
    res.setHeader('Content-Type', 'application/json');
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
    this.res.write(JSON.stringify(event) + '\n');
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
