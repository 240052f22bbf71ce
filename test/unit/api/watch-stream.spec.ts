import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { MAX_UNREAD_BYTES, WatchStream } from '../../../src/api/watch/watch-stream';

/** A response whose client never reads: everything written stays buffered. */
class StalledResponse extends EventEmitter {
  writableLength = 0;
  writableEnded = false;
  destroyed = false;
  headers: Record<string, string> = {};
  statusCode = 0;
  status(code: number) {
    this.statusCode = code;
    return this;
  }
  setHeader(k: string, v: string) {
    this.headers[k] = v;
  }
  flushHeaders() {}
  write(chunk: string) {
    this.writableLength += Buffer.byteLength(chunk);
    return false;
  }
  end() {
    this.writableEnded = true;
  }
  destroy() {
    this.destroyed = true;
  }
}

describe('WatchStream', () => {
  it('streams JSON event lines with chunked encoding', () => {
    const res = new StalledResponse();
    const stream = new WatchStream(res as unknown as Response);
    expect(res.statusCode).toBe(200);
    expect(res.headers['Content-Type']).toBe('application/json');
    expect(stream.send({ type: 'ADDED', object: { metadata: { name: 'a' } } })).toBe(true);
  });

  it('cuts off a client that stops reading instead of buffering without bound', () => {
    const res = new StalledResponse();
    const stream = new WatchStream(res as unknown as Response);
    let closed = false;
    stream.onClose(() => (closed = true));
    const big = { type: 'ADDED' as const, object: { metadata: { name: 'x' }, pad: 'x'.repeat(64 * 1024) } };
    let sent = 0;
    while (stream.send(big)) sent++;
    expect(sent * 64 * 1024).toBeGreaterThanOrEqual(MAX_UNREAD_BYTES - 128 * 1024);
    expect(sent * 64 * 1024).toBeLessThan(MAX_UNREAD_BYTES + 256 * 1024);
    expect(stream.closed).toBe(true);
    expect(closed).toBe(true);
    expect(res.destroyed).toBe(true);
  });

  it('closes when the client goes away', () => {
    const res = new StalledResponse();
    const stream = new WatchStream(res as unknown as Response);
    res.emit('close');
    expect(stream.closed).toBe(true);
    expect(stream.send({ type: 'ADDED', object: { metadata: {} } })).toBe(false);
  });
});
