import type { Response } from 'express';
import type { Socket } from 'node:net';
import { Change } from '../../storage/mvcc/object-store';
import { ChangeRenderer, WatchEvent, WatchEventType, WatchStream } from '../../registry/rest/watch';
import { JSON_WATCH_ENCODER, WatchEventEncoder } from './watch-encoder';
import { shareEncoding, sharedEncoding } from './shared-encodings';
import { httpChunk, httpChunkPayloadLength } from './http-chunks';
import { watchEventRecorder, WatchEventLabels } from '../../metrics/watch-metrics';

/** kube closes a watcher that does not keep up; this is how much may wait unread. */
export const MAX_UNREAD_BYTES = 4 * 1024 * 1024;

/**
 * How much of the backlog is handed to the socket at a time. TLS encrypts whatever it is
 * handed into memory of its own, so a client that stops reading pins one slice, not the
 * whole backlog; the backlog itself is made of encodings shared with the other watchers.
 */
const WRITE_SLICE_BYTES = 64 * 1024;

/**
 * The HTTP side of one watch: a chunked stream of events in the negotiated encoding (JSON
 * documents by default, Table rows or length-prefixed protobuf frames when negotiated). It
 * ends when the client goes away, the timeout passes, the server shuts down, or the client
 * stops reading: more than MAX_UNREAD_BYTES waiting is kube's "unresponsive" watcher, cut off.
 *
 * Events wait in the stream's own backlog and reach the socket only as fast as it drains,
 * and everything the stream holds is dropped the moment it closes.
 *
 * Once the headers are out, events go straight to the socket as ready-made HTTP chunks, one
 * write each, shared with the other watchers like the encoded bytes. Through the response,
 * Node would frame every write itself (four writes to a corked socket, uncorked on the next
 * tick): that was about a quarter of a fan-out's main-thread time per delivery, and no
 * watcher got its event before the last one's had been queued.
 */
export class HttpWatchStream implements WatchStream {
  private closedFlag = false;
  private unresponsiveFlag = false;
  private readonly closeHandlers: Array<() => void> = [];
  private readonly aborter = new AbortController();
  /** Encoded events not yet handed to the socket; the first may be partly written. */
  private backlog: Buffer[] = [];
  private backlogBytes = 0;
  private draining = false;
  /** Counts each event sent (kube's watch event metrics); unset, events are not counted. */
  private readonly recordEvent?: (bytes: number) => void;
  /** Per event type, the key under which watchers encoding alike share a change's bytes (none: this stream's bytes are its own). */
  private readonly sharedKeys?: Readonly<Record<WatchEventType, string>>;
  /**
   * The connection, when the stream writes HTTP chunks to it directly (the backlog then holds
   * chunks); null when writes go through the response (the headers are not out yet, e.g. behind
   * a pipelined response, or the body is not chunked).
   */
  private readonly socket: Socket | null;
  private readonly onSocketDrain = () => this.flush();

  constructor(
    private readonly res: Response,
    private readonly encoder: WatchEventEncoder = JSON_WATCH_ENCODER,
    /** The watched kind, for kube's watch event metrics; unset, events are not counted. */
    metricLabels?: WatchEventLabels,
  ) {
    this.recordEvent = metricLabels ? watchEventRecorder(metricLabels) : undefined;
    res.status(200);
    res.setHeader('Content-Type', encoder.contentType);
    res.setHeader('Transfer-Encoding', 'chunked');
    res.setHeader('Cache-Control', 'no-cache, private');
    res.flushHeaders();
    // Nothing of the response left in its own buffer: every byte so far is at the socket.
    const socket = res.socket;
    this.socket = res.chunkedEncoding && socket && res.writableLength === socket.writableLength ? socket : null;
    res.on('close', () => this.close());
    if (this.socket) this.socket.on('drain', this.onSocketDrain);
    else res.on('drain', () => this.flush());
    const key = encoder.sharedKey === undefined ? undefined : `${encoder.sharedKey}${this.socket ? ' chunk' : ''}`;
    if (key !== undefined) {
      this.sharedKeys = { ADDED: `ADDED ${key}`, MODIFIED: `MODIFIED ${key}`, DELETED: `DELETED ${key}`, BOOKMARK: `BOOKMARK ${key}`, ERROR: `ERROR ${key}` };
    }
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** Closed because the client stopped reading (kube's "unresponsive" watcher). */
  get unresponsive(): boolean {
    return this.unresponsiveFlag;
  }

  /** Aborted when the stream closes, so whatever waits on the watch's behalf stops at once. */
  get signal(): AbortSignal {
    return this.aborter.signal;
  }

  onClose(handler: () => void): void {
    if (this.closedFlag) handler();
    else this.closeHandlers.push(handler);
  }

  /** Queues one event; closes the stream instead when the client is too far behind. */
  send(event: WatchEvent): boolean {
    if (!this.admits()) return false;
    const bytes = this.encoder.encode(event);
    this.recordEvent?.(bytes.length);
    this.queue(this.socket ? httpChunk(bytes) : bytes);
    return true;
  }

  /**
   * Queues the event a change of the feed is for this watcher (`type`: its type for this
   * watcher). The event is made and encoded only when no watcher that encodes alike has
   * done it already: a change seen by many watchers is encoded once.
   */
  sendChange(change: Change, type: WatchEventType, render: ChangeRenderer): boolean {
    if (!this.admits()) return false;
    const key = this.sharedKeys?.[type];
    let bytes = key === undefined ? undefined : sharedEncoding(change, key);
    if (bytes === undefined) {
      bytes = this.encoder.encode(render(change, type));
      if (this.socket) bytes = httpChunk(bytes);
      if (key !== undefined) shareEncoding(change, key, bytes);
    }
    this.recordEvent?.(this.socket ? httpChunkPayloadLength(bytes) : bytes.length);
    this.queue(bytes);
    return true;
  }

  /** Hands bytes to the connection: false when it pushes back. */
  private write(bytes: Buffer): boolean {
    if (!this.socket) return this.res.write(bytes);
    // A connection already gone takes nothing, and one whose response was ended by someone
    // else may already carry the next response: the coming 'close' ends the stream.
    return !this.socket.destroyed && !this.res.writableEnded && this.socket.write(bytes);
  }

  /** Open and not too far behind; a client that is gets cut off (kube's unresponsive watcher). */
  private admits(): boolean {
    if (this.closedFlag) return false;
    // Until the socket pushes back it holds less than its high-water mark, far below the
    // limit: only a stream waiting for 'drain' can be too far behind (and worth measuring).
    if (this.draining && this.backlogBytes + this.res.writableLength > MAX_UNREAD_BYTES) {
      this.unresponsiveFlag = true;
      this.close();
      return false;
    }
    return true;
  }

  private queue(bytes: Buffer): void {
    // Nothing waiting and the socket taking more (nearly always): straight to the socket.
    if (!this.draining && this.backlog.length === 0 && bytes.length <= WRITE_SLICE_BYTES) {
      if (!this.write(bytes)) this.draining = true;
      return;
    }
    this.backlog.push(bytes);
    this.backlogBytes += bytes.length;
    if (!this.draining) this.flush();
  }

  /** Hands the backlog to the socket slice by slice until it pushes back, then waits for 'drain'. */
  private flush(): void {
    this.draining = false;
    while (this.backlog.length && !this.closedFlag) {
      const head = this.backlog[0];
      const slice = head.length > WRITE_SLICE_BYTES ? head.subarray(0, WRITE_SLICE_BYTES) : head;
      if (slice === head) this.backlog.shift();
      else this.backlog[0] = head.subarray(WRITE_SLICE_BYTES);
      this.backlogBytes -= slice.length;
      if (!this.write(slice)) {
        this.draining = true;
        return;
      }
    }
  }

  close(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    // A kept-alive connection goes on to serve other requests.
    this.socket?.removeListener('drain', this.onSocketDrain);
    if (!this.res.writableEnded) {
      // A client that stops reading would never take what is buffered: drop its connection.
      if (this.unresponsiveFlag) this.res.destroy();
      else {
        for (const bytes of this.backlog) this.write(bytes);
        this.res.end();
      }
    }
    this.backlog = [];
    this.backlogBytes = 0;
    this.aborter.abort();
    for (const h of this.closeHandlers.splice(0)) h();
  }
}
