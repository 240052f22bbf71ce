import type { ClientRequest } from 'node:http';
import * as https from 'node:https';

/**
 * A child process of the watch-memory benchmark: opens watches that never read their
 * responses (a stuck client), so the server's buffers for them fill until it cuts them off.
 * It lives in its own process so the benchmark's memory figures are the server's alone.
 *
 * Message in: `{ url, path, count, tls }`; out: `{ opened }` once every watch answered 200.
 * The watches close when the process exits (the parent kills it).
 */
interface Start {
  url: string;
  path: string;
  count: number;
  tls: { ca: string; cert: string; key: string };
}

function openIdleWatch(start: Start, requests: ClientRequest[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(start.path, start.url), { method: 'GET', agent: false, ...start.tls }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`watch answered ${res.statusCode}`));
      // Never read: the socket's receive buffer fills, then the server's send buffers do.
      res.pause();
      resolve();
    });
    req.on('error', () => undefined);
    requests.push(req);
    req.end();
  });
}

process.once('message', async (start: Start) => {
  const requests: ClientRequest[] = [];
  try {
    for (let i = 0; i < start.count; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, start.count - i) }, () => openIdleWatch(start, requests)));
    }
    process.send!({ opened: requests.length });
    // Stay until killed: paused sockets alone may not keep the process alive.
    setInterval(() => undefined, 60_000);
  } catch (err) {
    process.send!({ error: (err as Error).message });
  }
});
