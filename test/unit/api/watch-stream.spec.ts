import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { HttpWatchStream as WatchStream, MAX_UNREAD_BYTES } from '../../../src/endpoints/watch/watch-stream';
import { WatchEventType } from '../../../src/registry/rest/watch';
import { Change } from '../../../src/storage/mvcc/object-store';

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
  readonly written: Buffer[] = [];
  write(chunk: Buffer) {
    this.written.push(chunk);
    this.writableLength += chunk.length;
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

  it('hands a socket that pushes back one slice of a large event, keeping the rest until it drains', () => {
    const res = new StalledResponse();
    const stream = new WatchStream(res as unknown as Response);
    expect(stream.send({ type: 'ADDED', object: { metadata: { name: 'big' }, pad: 'x'.repeat(1024 * 1024) } })).toBe(true);
    expect(res.writableLength).toBe(64 * 1024);
    res.writableLength = 0;
    res.emit('drain');
    expect(res.writableLength).toBe(64 * 1024);
    expect(res.written).toHaveLength(2);
    expect(stream.closed).toBe(false);
  });

  it('makes and encodes the event of one change once for every stream that sends it alike', () => {
    const object = { metadata: { name: 'shared', resourceVersion: '7' } };
    const change: Change = { type: 'ADDED', key: { resource: 'g/things', namespace: '', name: 'shared' }, revision: '7', object, bytes: 40 };
    const rendered: string[] = [];
    const render = (c: Change, type: WatchEventType) => {
      rendered.push(type);
      return { type, object: c.object };
    };
    const [a, b] = [new StalledResponse(), new StalledResponse()];
    expect(new WatchStream(a as unknown as Response).sendChange(change, 'ADDED', render)).toBe(true);
    expect(new WatchStream(b as unknown as Response).sendChange(change, 'ADDED', render)).toBe(true);
    expect(a.written[0]).toBe(b.written[0]);
    expect(JSON.parse(a.written[0].toString())).toEqual({ type: 'ADDED', object });
    expect(rendered).toEqual(['ADDED']);
  });

  it('keeps apart the events a change is for different watchers, and encoders whose bytes are their own', () => {
    const object = { metadata: { name: 'moved', resourceVersion: '8', labels: { app: 'b' } } };
    const previous = { metadata: { name: 'moved', resourceVersion: '7', labels: { app: 'a' } } };
    const change: Change = { type: 'MODIFIED', key: { resource: 'g/things', namespace: '', name: 'moved' }, revision: '8', object, previous, bytes: 40 };
    // A watcher selecting app=a sees the object leave (its last content), one without selectors the update.
    const render = (c: Change, type: WatchEventType) => ({ type, object: type === 'DELETED' ? c.previous! : c.object });
    const [plain, selecting] = [new StalledResponse(), new StalledResponse()];
    new WatchStream(plain as unknown as Response).sendChange(change, 'MODIFIED', render);
    new WatchStream(selecting as unknown as Response).sendChange(change, 'DELETED', render);
    expect(JSON.parse(plain.written[0].toString())).toEqual({ type: 'MODIFIED', object });
    expect(JSON.parse(selecting.written[0].toString())).toEqual({ type: 'DELETED', object: previous });
    // An encoder with state of its own (no shared key) encodes for itself every time.
    let encoded = 0;
    const ownBytes = { contentType: 'application/json', encode: () => Buffer.from(`${++encoded}\n`) };
    const [c, d] = [new StalledResponse(), new StalledResponse()];
    new WatchStream(c as unknown as Response, ownBytes).sendChange(change, 'MODIFIED', render);
    new WatchStream(d as unknown as Response, ownBytes).sendChange(change, 'MODIFIED', render);
    expect([c.written[0].toString(), d.written[0].toString()]).toEqual(['1\n', '2\n']);
  });

  it('lets go of everything when it closes: backlog, waiters (its signal) and the connection of a client that stopped reading', () => {
    const res = new StalledResponse();
    const stream = new WatchStream(res as unknown as Response);
    const pad = 'x'.repeat(1024 * 1024);
    while (stream.send({ type: 'ADDED', object: { metadata: { name: 'x' }, pad } }));
    expect(stream.unresponsive).toBe(true);
    expect(stream.signal.aborted).toBe(true);
    expect(res.destroyed).toBe(true);
    res.emit('drain');
    expect(res.written).toHaveLength(1);
  });

  it('closes when the client goes away', () => {
    const res = new StalledResponse();
    const stream = new WatchStream(res as unknown as Response);
    res.emit('close');
    expect(stream.closed).toBe(true);
    expect(stream.send({ type: 'ADDED', object: { metadata: {} } })).toBe(false);
    expect(stream.signal.aborted).toBe(true);
    expect(stream.unresponsive).toBe(false);
  });
});
