import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { RequestInfoMiddleware } from '../../../src/endpoints/filters/request-info.middleware';
import { RequestTimeoutMiddleware, requestTimeoutMs } from '../../../src/endpoints/filters/request-timeout.middleware';
import { IncomingRequest } from '../../../src/endpoints/request/request-scope';
import { ResourceRegistry } from '../../../src/registry/resources/registry';
import { StatusError } from '../../../src/apimachinery/errors';
import { defaultOptions } from '../../../src/config/options';

const registry = { isServed: () => false, aliasOf: () => undefined } as unknown as ResourceRegistry;

describe('?timeout= (kube WithRequestDeadline)', () => {
  it('shortens the request timeout, never lengthens it, and 0 or less sets none of its own', () => {
    expect(requestTimeoutMs(undefined, 60_000)).toBe(60_000);
    expect(requestTimeoutMs('', 60_000)).toBe(60_000);
    expect(requestTimeoutMs('1.5s', 60_000)).toBe(1500);
    expect(requestTimeoutMs(['250ms', '10s'], 60_000)).toBe(250);
    expect(requestTimeoutMs('2h', 60_000)).toBe(60_000);
    expect(requestTimeoutMs('0s', 60_000)).toBe(60_000);
    expect(requestTimeoutMs('-1s', 60_000)).toBe(60_000);
  });

  it('is 400 when not a Go duration, in kube words', () => {
    let thrown: unknown;
    try {
      requestTimeoutMs('10', 60_000);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(StatusError);
    expect((thrown as StatusError).toStatus()).toMatchObject({ code: 400, reason: 'BadRequest', message: 'invalid timeout specified in the request URL - time: missing unit in duration "10"' });
  });
});

describe('the request timeout stage', () => {
  let server: http.Server;
  let base: string;
  /** Work of the slow route, released by the test. */
  let release: () => void;
  let released: Promise<void>;
  /** What the slow route saw when it went on after its timeout. */
  let late: { threw?: unknown; deadlineExpired?: boolean; done: Promise<void> };

  beforeAll(async () => {
    const info = new RequestInfoMiddleware(registry);
    const timeout = new RequestTimeoutMiddleware(defaultOptions({ requestTimeoutMs: 300 }), registry);
    const app = express();
    app.use((req: Request, res: Response, next: NextFunction) => info.use(req as IncomingRequest, res, next));
    app.use((req: Request, res: Response, next: NextFunction) => timeout.use(req as IncomingRequest, res, next));
    app.get('/slow', async (req, res) => {
      let finish!: () => void;
      late.done = new Promise((resolve) => (finish = resolve));
      await released;
      try {
        res.write('more');
        res.end('and more');
        res.setHeader('X-Late', 'yes');
        res.status(200).json({ late: true });
      } catch (err) {
        late.threw = err;
      }
      late.deadlineExpired = (req as IncomingRequest).scope.deadline?.expired;
      finish();
    });
    app.get('/streaming', async (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('part of it');
      await released;
      res.end('the rest');
    });
    app.get('/quick', (_req, res) => {
      res.json({ quick: true });
    });
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  beforeEach(() => {
    released = new Promise((resolve) => (release = resolve));
    late = { done: Promise.resolve() };
  });

  function get(path: string): Promise<{ status?: number; headers?: http.IncomingHttpHeaders; body?: string; error?: string }> {
    return new Promise((resolve) => {
      http
        .get(`${base}${path}`, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
          res.on('error', (err) => resolve({ status: res.statusCode, body, error: err.message }));
        })
        .on('error', (err) => resolve({ error: err.message }));
    });
  }

  it("answers kube's 504 Timeout when the work takes too long, and drops what the work writes later", async () => {
    const answer = await get('/slow');
    expect(answer.status).toBe(504);
    expect(answer.headers!['content-type']).toBe('application/json');
    expect(JSON.parse(answer.body!)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Timeout: request did not complete within the allotted timeout',
      reason: 'Timeout',
      details: {},
      code: 504,
    });
    release();
    await late.done;
    // The late answer went nowhere: no throw, no "write after end", and the deadline says why.
    expect(late.threw).toBeUndefined();
    expect(late.deadlineExpired).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
  });

  it('cuts the connection of an answer already under way', async () => {
    const answer = await get('/streaming');
    expect(answer).toMatchObject({ status: 200, body: 'part of it', error: 'aborted' });
    release();
  });

  it('leaves a quick request alone', async () => {
    expect(await get('/quick')).toMatchObject({ status: 200, body: '{"quick":true}' });
  });
});
