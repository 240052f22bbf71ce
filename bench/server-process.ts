import { readFileSync } from 'node:fs';
import * as https from 'node:https';
import { join } from 'node:path';
import * as YAML from 'yaml';
import { freePort, ProbedProcess, startProbedProcess } from './probed-process';

/**
 * The server in a child process of its own (bench/probed-process.ts) on a new embedded data
 * directory, with the admin credential it wrote there, and a client that sends bodies as they
 * are (YAML, patches, broken syntax) and reads answers in any format.
 */
export interface RawResponse {
  status: number;
  /** The body as text (JSON, YAML, or protobuf bytes read as Latin-1). */
  text: string;
}

export interface RawRequest {
  method: string;
  path: string;
  body?: string;
  contentType?: string;
  accept?: string;
}

export interface ServerProcess {
  process: ProbedProcess;
  url: string;
  tls: { ca: string; cert: string; key: string };
  /** A client of its own: `maxSockets` kept-alive connections. */
  client(maxSockets?: number): RawClient;
  stop(): Promise<void>;
}

export class RawClient {
  private readonly agent: https.Agent;

  constructor(
    private readonly baseUrl: string,
    tls: { ca: string; cert: string; key: string },
    maxSockets: number,
  ) {
    this.agent = new https.Agent({ keepAlive: true, maxSockets, ...tls });
  }

  send(req: RawRequest): Promise<RawResponse> {
    const body = req.body === undefined ? undefined : Buffer.from(req.body, 'utf8');
    const headers: Record<string, string> = {};
    if (body) Object.assign(headers, { 'Content-Type': req.contentType ?? 'application/json', 'Content-Length': String(body.length) });
    if (req.accept) headers.Accept = req.accept;
    return new Promise((resolve, reject) => {
      const r = https.request(new URL(req.path, this.baseUrl), { method: req.method, agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString(/json|yaml/.test(String(res.headers['content-type'])) ? 'utf8' : 'latin1') }));
        res.on('error', reject);
      });
      r.on('error', reject);
      if (body) r.write(body);
      r.end();
    });
  }

  /** Sends and insists on `status`; answers the body parsed as JSON. */
  async must(method: string, path: string, body: unknown, status: number): Promise<any> {
    const res = await this.send({ method, path, body: body === undefined ? undefined : JSON.stringify(body) });
    if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
    return JSON.parse(res.text);
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Node's flags as the image and `npm start` run the server (the Dockerfile's NODE_OPTIONS). */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=2'];

export async function startServerProcess(work: string, flags: string[] = []): Promise<ServerProcess> {
  const port = await freePort();
  const dataDir = join(work, 'data');
  // BENCH_SERVER_NODE_FLAGS adds Node flags of one's own (`--cpu-prof`, `--trace-gc`) to every server a bench starts.
  const extra = (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const args = [...SERVER_NODE_FLAGS, ...extra, join(__dirname, '..', 'src', 'main.js'), `--secure-port=${port}`, '--bind-address=127.0.0.1', `--data-dir=${dataDir}`, ...flags];
  const server = await startProbedProcess('server', args, port, join(work, 'probe.json'));
  const config = YAML.parse(readFileSync(join(dataDir, 'admin.kubeconfig'), 'utf8'));
  const pem = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');
  const tls = {
    ca: pem(config.clusters[0].cluster['certificate-authority-data']),
    cert: pem(config.users[0].user['client-certificate-data']),
    key: pem(config.users[0].user['client-key-data']),
  };
  const url = `https://127.0.0.1:${port}`;
  const clients: RawClient[] = [];
  return {
    process: server,
    url,
    tls,
    client: (maxSockets = 1) => {
      const c = new RawClient(url, tls, maxSockets);
      clients.push(c);
      return c;
    },
    stop: async () => {
      clients.forEach((c) => c.close());
      await server.stop();
    },
  };
}
