import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import express from 'express';
import { HttpWatchStream as WatchStream } from '../../../src/endpoints/watch/watch-stream';
import { WatchEventType } from '../../../src/registry/rest/watch';
import { httpChunk, httpChunkPayloadLength } from '../../../src/endpoints/watch/http-chunks';
import { Change } from '../../../src/storage/mvcc/object-store';

/** Watch streams on real connections: the events go to the socket as HTTP chunks of the stream's own making. */
describe('WatchStream on a connection', () => {
  let server: http.Server;
  let base: string;
  const streams: WatchStream[] = [];
  const sockets: Socket[] = [];
  const responses: express.Response[] = [];
  let opened: () => void = () => undefined;

  beforeAll(async () => {
    const app = express();
    app.get('/watch', (req, res) => {
      sockets.push(req.socket);
      responses.push(res);
      streams.push(new WatchStream(res));
      opened();
    });
    app.get('/plain', (_req, res) => res.json({ ok: true }));
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    streams.length = 0;
    sockets.length = 0;
    responses.length = 0;
  });

  /** Opens a watch; resolves once the server holds its stream, with the client's response. */
  function openWatch(agent: http.Agent): Promise<http.IncomingMessage> {
    return new Promise((resolve, reject) => {
      let response: http.IncomingMessage | undefined;
      let serverSide = false;
      const both = () => response && serverSide && resolve(response);
      opened = () => ((serverSide = true), both());
      http.get(`${base}/watch`, { agent }, (res) => ((response = res), both())).on('error', reject);
    });
  }

  /** GET /plain through the agent: the body, and whether a kept-alive connection carried it. */
  function getPlain(agent: http.Agent): Promise<{ body: string; reused: boolean }> {
    return new Promise((resolve, reject) => {
      const req = http.get(`${base}/plain`, { agent }, (r) => {
        let body = '';
        r.on('data', (d) => (body += d));
        r.on('end', () => resolve({ body, reused: req.reusedSocket }));
      });
      req.on('error', reject);
    });
  }

  /** Every line of the body, once it ends. */
  function lines(res: http.IncomingMessage): Promise<string[]> {
    return new Promise((resolve, reject) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve(Buffer.concat(parts).toString().split('\n').filter(Boolean)));
      res.on('error', reject);
    });
  }

  it('sends events larger than a write slice to a client that paused, whole and in order, then frees the connection for the next request', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const res = await openWatch(agent);
      expect(res.headers['transfer-encoding']).toBe('chunked');
      res.pause();
      const [stream, socket] = [streams[0], sockets[0]];
      const drainListeners = socket.listenerCount('drain');
      const pad = 'p'.repeat(100 * 1024);
      // 2 MB: far more than the socket takes before it pushes back, less than the unread limit.
      for (let i = 0; i < 20; i++) expect(stream.send({ type: 'ADDED', object: { metadata: { name: `e${i}` }, pad } })).toBe(true);
      stream.send({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } });
      const read = lines(res);
      res.resume();
      stream.close();
      const events = (await read).map((l) => JSON.parse(l) as { type: string; object: { metadata: { name?: string }; pad?: string } });
      expect(events.map((e) => e.object.metadata.name ?? e.type)).toEqual([...Array.from({ length: 20 }, (_, i) => `e${i}`), 'BOOKMARK']);
      expect(events.every((e) => e.type === 'BOOKMARK' || e.object.pad === pad)).toBe(true);
      // The connection is kept alive and serves the next request, with no listener of the watch left on it.
      expect(socket.listenerCount('drain')).toBe(drainListeners - 1);
      expect(await getPlain(agent)).toEqual({ body: '{"ok":true}', reused: true });
    } finally {
      agent.destroy();
    }
  });

  it('writes nothing more to a connection whose response was ended elsewhere (it may carry the next response)', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const read = lines(await openWatch(agent));
      const stream = streams[0];
      expect(stream.send({ type: 'ADDED', object: { metadata: { name: 'before' } } })).toBe(true);
      responses[0].end();
      stream.send({ type: 'ADDED', object: { metadata: { name: 'after' } } });
      expect((await read).map((l) => (JSON.parse(l) as { object: { metadata: { name: string } } }).object.metadata.name)).toEqual(['before']);
      // The same connection serves it, unharmed by stray bytes.
      expect(await getPlain(agent)).toEqual({ body: '{"ok":true}', reused: true });
    } finally {
      agent.destroy();
    }
  });

  it('shares one chunk of a change between watchers and reads back the same event on each', async () => {
    const agent = new http.Agent({ keepAlive: false });
    const responses = [await openWatch(agent), await openWatch(agent)];
    const object = { metadata: { name: 'shared', resourceVersion: '7' } };
    const change: Change = { type: 'ADDED', key: { resource: 'g/things', namespace: '', name: 'shared' }, revision: '7', object, bytes: 40 };
    let rendered = 0;
    const render = (c: Change, type: WatchEventType) => (rendered++, { type, object: c.object });
    const reads = responses.map(lines);
    for (const stream of streams) expect(stream.sendChange(change, 'ADDED', render)).toBe(true);
    for (const stream of streams) stream.close();
    for (const got of await Promise.all(reads)) expect(got.map((l) => JSON.parse(l))).toEqual([{ type: 'ADDED', object }]);
    expect(rendered).toBe(1);
  });
});

describe('httpChunk', () => {
  it.each([1, 15, 16, 255, 4096, 70_000])('frames %i bytes as one chunk whose size line reads back', (size) => {
    const payload = Buffer.alloc(size, 'a');
    const chunk = httpChunk(payload);
    const sizeLine = `${size.toString(16)}\r\n`;
    expect(chunk.subarray(0, sizeLine.length).toString('latin1')).toBe(sizeLine);
    expect(chunk.subarray(sizeLine.length, sizeLine.length + size).equals(payload)).toBe(true);
    expect(chunk.subarray(chunk.length - 2).toString('latin1')).toBe('\r\n');
    expect(httpChunkPayloadLength(chunk)).toBe(size);
  });
});
