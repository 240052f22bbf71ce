import { AddressInfo } from 'node:net';
import * as http from 'node:http';
import { WebhookCallError, WebhookTransport } from '../../../src/webhook-client/webhook-transport';

/** A local webhook that answers from a list of status codes, one per call. */
function scriptedServer(codes: number[], headers: Record<string, string> = {}) {
  const calls: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      calls.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''} ${body}`);
      const code = codes.shift() ?? 200;
      if (code === 0) return; // never answer
      res.writeHead(code, { 'Content-Type': 'application/json', ...headers });
      res.end(code === 200 ? '{"ok":true}' : 'boom');
    });
  });
  return new Promise<{ url: URL; calls: string[]; close: () => void }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/authorize?x=1`),
        calls,
        close: () => {
          server.closeAllConnections();
          server.close();
        },
      }),
    ),
  );
}

const fastBackoff = { initialDelayMs: 10, factor: 1.5, jitter: 0.2, steps: 5 };
const decode = (text: string) => JSON.parse(text) as { ok: boolean };

describe('webhook transport', () => {
  it('posts JSON to the exact URL with the token, and decodes the answer', async () => {
    const server = await scriptedServer([200]);
    const transport = new WebhookTransport({ server: server.url, insecureSkipTlsVerify: false, token: 't0k' }, fastBackoff);
    expect(await transport.post('{"a":1}', 1000, decode)).toEqual({ ok: true });
    expect(server.calls).toEqual(['POST /authorize?x=1 Bearer t0k {"a":1}']);
    transport.close();
    server.close();
  });

  it('retries 500, 504 and 429 with backoff, up to five tries', async () => {
    const server = await scriptedServer([500, 504, 429, 200]);
    const results: string[] = [];
    const transport = new WebhookTransport({ server: server.url, insecureSkipTlsVerify: false }, fastBackoff, (r) => results.push(r));
    expect(await transport.post('{}', 5000, decode)).toEqual({ ok: true });
    expect(server.calls).toHaveLength(4);
    expect(results).toEqual(['error', 'timeout', 'error', 'success']);
    const failing = await scriptedServer([500, 500, 500, 500, 500, 500]);
    const t2 = new WebhookTransport({ server: failing.url, insecureSkipTlsVerify: false }, fastBackoff);
    await expect(t2.post('{}', 5000, decode)).rejects.toThrow('an error on the server ("boom") has prevented the request from succeeding');
    expect(failing.calls).toHaveLength(5);
    transport.close();
    t2.close();
    server.close();
    failing.close();
  });

  it('does not retry other failures (403, a malformed answer)', async () => {
    const server = await scriptedServer([403]);
    const transport = new WebhookTransport({ server: server.url, insecureSkipTlsVerify: false }, fastBackoff);
    await expect(transport.post('{}', 5000, decode)).rejects.toThrow('Forbidden');
    await expect(
      transport.post('{}', 5000, () => {
        throw new Error('bad answer');
      }),
    ).rejects.toMatchObject({ message: 'bad answer', result: 'error', retriable: false });
    expect(server.calls).toHaveLength(2);
    transport.close();
    server.close();
  });

  it('gives up at the timeout, retries included', async () => {
    const server = await scriptedServer([0]);
    const transport = new WebhookTransport({ server: server.url, insecureSkipTlsVerify: false }, fastBackoff);
    const started = Date.now();
    const err = (await transport.post('{}', 300, decode).catch((e) => e)) as WebhookCallError;
    expect(err).toBeInstanceOf(WebhookCallError);
    expect(err.message).toBe(`Post "${server.url.href}": context deadline exceeded`);
    expect(err.result).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2000);
    transport.close();
    server.close();
  });

  it('reports a refused connection without retrying it', async () => {
    const transport = new WebhookTransport({ server: new URL('http://127.0.0.1:1/x'), insecureSkipTlsVerify: false }, fastBackoff);
    await expect(transport.post('{}', 1000, decode)).rejects.toThrow(/^Post "http:\/\/127\.0\.0\.1:1\/x": connect ECONNREFUSED/);
    transport.close();
  });
});
