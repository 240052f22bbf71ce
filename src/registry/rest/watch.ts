import { KubeObject, Status } from '../../apimachinery/types';
import { Change, ChangeType } from '../../storage/mvcc/object-store';

export type WatchEventType = ChangeType | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject | Status;
}

/** Makes the event a change is for a watcher, given the type it has for that watcher. */
export type ChangeRenderer = (change: Change, type: WatchEventType) => WatchEvent;

/**
 * Where a storage's watch sends its events: the endpoints open one per watch request (an
 * HTTP stream in the negotiated encoding). `send` and `sendChange` answer false once the
 * watcher can take no more (it went away or stopped reading); the storage then stops.
 */
export interface WatchStream {
  readonly closed: boolean;
  /** Closed because the client stopped reading (kube's unresponsive watcher). */
  readonly unresponsive: boolean;
  /** Aborts when the stream closes. */
  readonly signal: AbortSignal;
  onClose(handler: () => void): void;
  send(event: WatchEvent): boolean;
  /** A change as `type` for this watcher, its encoding shared with watchers encoding alike. */
  sendChange(change: Change, type: WatchEventType, render: ChangeRenderer): boolean;
  close(): void;
}
