import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../support/eventually';
import { HttpsClient } from '../support/https-client';
import { writeTokenFile } from '../support/token-file';

const MAIN = join(__dirname, '..', '..', 'dist', 'src', 'main.js');
const TOKEN = 'sh-secret-token-4d1f9a';
const SECRET_VALUE = 'sh-secret-value-77c2e0';

const childEnv = () => {
  const env = { ...process.env };
  delete env.DATABASE_URL; // the embedded store: the restart must find what was acknowledged
  delete env.NODE_OPTIONS;
  return env;
};

interface ServerProcess {
  child: ChildProcess;
  client: HttpsClient;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function startProcess(dataDir: string, args: string[]): Promise<ServerProcess> {
  const child = spawn(process.execPath, [MAIN, '--data-dir', dataDir, '--secure-port', '0', ...args], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start: ${out}${err}`));
    }, 120_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /serving on (https:\/\/\S+)\n/.exec(out);
      if (m) {
        clearTimeout(timer);
        const ca = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
        resolve({ child, client: new HttpsClient(m[1], ca, { token: TOKEN }), stdout: () => out, stderr: () => err, exited });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${out}${err}`));
    });
  });
}

const clusterRole = (name: string) => ({ apiVersion: 'rbac.authorization.platform.io/v1', kind: 'ClusterRole', metadata: { name }, rules: [] });
const CLUSTER_ROLES = '/apis/rbac.authorization.platform.io/v1/clusterroles';

/** A POST whose body is sent in two parts: it is in flight from the first part until `finish`. */
function slowPost(client: HttpsClient, path: string, body: unknown) {
  const payload = Buffer.from(JSON.stringify(body));
  const url = new URL(path, client.baseUrl);
  const ca = (client as unknown as { caPem: string }).caPem;
  let answer!: Promise<{ status: number; body: string }>;
  const req = https.request(url, {
    method: 'POST',
    ca,
    agent: false,
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', 'Content-Length': String(payload.length) },
  });
  answer = new Promise((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
  });
  req.write(payload.subarray(0, 10));
  req.flushHeaders();
  return {
    finish(): Promise<{ status: number; body: string }> {
      req.end(payload.subarray(10));
      return answer;
    },
  };
}

/** A watch whose raw bytes are kept, to see that the stream ends after whole frames. */
function rawWatch(client: HttpsClient, path: string) {
  const ca = (client as unknown as { caPem: string }).caPem;
  return new Promise<{ text: () => string; ended: Promise<void> }>((resolve, reject) => {
    const req = https.request(new URL(path, client.baseUrl), { ca, agent: false, headers: { Authorization: `Bearer ${TOKEN}` } }, (res) => {
      let text = '';
      const ended = new Promise<void>((done) => {
        res.on('end', () => done());
        res.on('error', () => done());
      });
      res.on('data', (c: Buffer) => (text += c.toString()));
      resolve({ text: () => text, ended });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Resolves once a new connection is refused: the listener is closed. */
async function listenerClosed(client: HttpsClient): Promise<void> {
  await eventually(async () => {
    const refused = await client.get('/livez').then(
      () => false,
      (err: NodeJS.ErrnoException) => err.code === 'ECONNREFUSED',
    );
    expect(refused).toBe(true);
  }, 30_000, 50);
}

describe('graceful shutdown of the server process', () => {
  let dataDir: string;
  let tokenFile: string;

  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: npm test builds it first (npm run build)`);
    dataDir = mkdtempSync(join(tmpdir(), 'platform-shutdown-'));
    tokenFile = writeTokenFile(mkdtempSync(join(tmpdir(), 'platform-shutdown-tokens-')), [`${TOKEN},ops-admin,uid-1,"system:masters"`]);
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('fails readyz at once, serves through the delay, drains an in-flight write, ends a watch cleanly, exits 0, and loses nothing acknowledged', async () => {
    const server = await startProcess(dataDir, ['--shutdown-delay-duration=4s', '-v=2', '--logging-format=json', `--token-auth-file=${tokenFile}`]);
    const { client } = server;
    expect((await client.get('/readyz')).text).toBe('ok');
    const secret = await client.post('/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'logged-never' }, stringData: { password: SECRET_VALUE } });
    expect(secret.status).toBe(201);
    expect((await client.get('/api/v1/namespaces/default/secrets/logged-never')).status).toBe(200);
    const watch = await rawWatch(client, `${CLUSTER_ROLES}?watch=1&resourceVersion=${(await client.get(CLUSTER_ROLES)).body.metadata.resourceVersion}`);
    const inFlight = slowPost(client, CLUSTER_ROLES, clusterRole('written-while-stopping'));

    server.child.kill('SIGTERM');
    await eventually(async () => {
      const ready = await client.get('/readyz');
      expect(ready.status).toBe(500);
      expect(ready.text).toMatch(/\[-\]shutdown failed: reason withheld\nreadyz check failed\n$/);
    }, 10_000, 50);
    // Still serving during --shutdown-delay-duration: liveness holds, writes are acknowledged.
    expect((await client.get('/livez')).status).toBe(200);
    const during = await client.post(CLUSTER_ROLES, clusterRole('acknowledged-during-delay'));
    expect(during.status).toBe(201);

    // After the delay the listener closes, but the request in flight is finished and answered.
    await listenerClosed(client);
    const answered = await inFlight.finish();
    expect(answered.status).toBe(201);
    expect(JSON.parse(answered.body).metadata.name).toBe('written-while-stopping');

    // The watch saw the write of the delay and was ended after whole frames.
    await watch.ended;
    const text = watch.text();
    expect(text.endsWith('\n')).toBe(true);
    const events = text.split('\n').filter(Boolean).map((line) => JSON.parse(line));
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(expect.arrayContaining(['ADDED acknowledged-during-delay', 'ADDED written-while-stopping']));

    expect(await server.exited).toBe(0);
    expect(server.stdout()).toContain('SIGTERM received, shutting down');

    // -v=2: one httplog line per request, in JSON, with the audit ID; never the bearer token.
    const log = server.stderr();
    for (const credential of [TOKEN, SECRET_VALUE, Buffer.from(SECRET_VALUE).toString('base64')]) expect(log).not.toContain(credential);
    const lines = log.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const created = lines.find((l) => l.msg === 'HTTP' && l['audit-ID'] === during.headers['audit-id']);
    expect(created).toMatchObject({ v: 2, verb: 'POST', URI: CLUSTER_ROLES, user: 'ops-admin', resp: 201 });
    expect(created.latency).toMatch(/^[\d.]+(µs|ms|s)$/);
    expect(lines.filter((l) => l['audit-ID'] === during.headers['audit-id'])).toHaveLength(1);
    expect(lines.filter((l) => l.msg === 'HTTP' && /watch=1/.test(l.URI)).map((l) => `${l.verb} ${l.resp}`)).toEqual(['WATCH 200']);
    expect(lines.some((l) => /shutdown complete/.test(l.msg))).toBe(true);

    // Everything acknowledged is there after a restart.
    const again = await startProcess(dataDir, [`--token-auth-file=${tokenFile}`]);
    try {
      for (const name of ['acknowledged-during-delay', 'written-while-stopping']) {
        expect((await again.client.get(`${CLUSTER_ROLES}/${name}`)).status).toBe(200);
      }
      // -v=0 (default): start-up events in klog's text format, no request lines.
      expect(again.stderr()).toMatch(/^I\d{4} [\d:.]+ +\d+ Server\] serving securely on 127\.0\.0\.1:\d+$/m);
      expect(again.stderr()).not.toContain('"HTTP"');
    } finally {
      again.child.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    }
  }, 300_000);

  it('answers 429 with Retry-After to new requests while in-flight ones drain (--shutdown-send-retry-after), probes excepted', async () => {
    const server = await startProcess(dataDir, ['--shutdown-delay-duration=1s', '--shutdown-send-retry-after', `--token-auth-file=${tokenFile}`]);
    const { client } = server;
    const inFlight = slowPost(client, CLUSTER_ROLES, clusterRole('drained-after-retry-after'));
    await eventually(async () => expect((await client.get('/readyz')).status).toBe(200), 5000, 50);
    server.child.kill('SIGTERM');
    await eventually(async () => {
      const refused = await client.get('/api/v1/namespaces');
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.headers.connection).toBe('close');
      expect(refused.text).toBe('The apiserver is shutting down, please try again later.\n');
    }, 10_000, 50);
    expect((await client.get('/readyz')).status).toBe(500);
    expect((await client.get('/livez')).status).toBe(200);
    const answered = await inFlight.finish();
    expect(answered.status).toBe(201);
    expect(await server.exited).toBe(0);
  }, 300_000);

  it('exits at once on a second signal', async () => {
    const server = await startProcess(dataDir, ['--shutdown-delay-duration=5m', `--token-auth-file=${tokenFile}`]);
    server.child.kill('SIGTERM');
    await eventually(async () => expect((await server.client.get('/readyz')).status).toBe(500), 10_000, 50);
    const began = Date.now();
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(1);
    expect(Date.now() - began).toBeLessThan(5000);
    expect(server.stdout()).toContain('SIGINT received again, exiting at once');
  }, 300_000);
});
