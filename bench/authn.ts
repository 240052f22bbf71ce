import 'reflect-metadata';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import * as https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueClientCertificate } from '../src/server/certificates';
import { startBenchServer } from './servers';

/**
 * `npm run bench -- authn`: what authentication costs per request for each method, as µs
 * above the static-token path. One keep-alive connection per method sends `GET /version`
 * (allowed to everyone, so authentication is most of the work) one request at a time;
 * methods take turns in rounds and each figure is the median of its rounds' means.
 */
const ROUNDS = Number(process.env.BENCH_AUTHN_ROUNDS ?? 15);
const PER_ROUND = Number(process.env.BENCH_AUTHN_REQUESTS ?? 200);

interface Method {
  name: string;
  agent: https.Agent;
  headers: Record<string, string>;
}

function get(url: URL, method: Method): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { agent: method.agent, headers: method.headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

export async function runAuthnBench(): Promise<void> {
  // As kube, a token's success is reused for 10 s (here: while the store is unchanged); without
  // the cache every request runs the method itself (signature, store lookups).
  await measure('token cache on (default)', 10_000);
  await measure('token cache off: every request verified', 0);
}

async function measure(label: string, tokenCacheTtlMs: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'authn-bench-'));
  writeFileSync(join(dir, 'tokens.csv'), 'static-bench-token,bench-static,uid-static,"bench"\n');
  const server = await startBenchServer(undefined, { tokenAuthFile: join(dir, 'tokens.csv'), enableBootstrapTokenAuth: true, tokenCacheTtlMs });
  try {
    const admin = server.client(4);
    const ok = (res: { status: number; body: any }, what: string) => {
      if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
      return res;
    };
    ok(await admin.request('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'bench' } }), 'service account');
    const bound = ok(await admin.request('POST', '/api/v1/namespaces/default/serviceaccounts/bench/token', { spec: {} }), 'token request').body.status.token as string;
    ok(
      await admin.request('POST', '/api/v1/namespaces/kube-system/secrets', {
        metadata: { name: 'bootstrap-token-benchx' },
        type: 'bootstrap.platform.io/token',
        stringData: { 'token-id': 'benchx', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true' },
      }),
      'bootstrap token',
    );
    ok(
      await admin.request('POST', '/api/v1/namespaces/default/secrets', {
        metadata: { name: 'bench-legacy', annotations: { 'platform.io/service-account.name': 'bench' } },
        type: 'platform.io/service-account-token',
      }),
      'legacy secret',
    );
    let legacy = '';
    for (let i = 0; i < 100 && !legacy; i++) {
      const secret = (await admin.request('GET', '/api/v1/namespaces/default/secrets/bench-legacy')).body;
      if (secret.data?.token) legacy = Buffer.from(secret.data.token, 'base64').toString();
      else await new Promise((r) => setTimeout(r, 100));
    }
    if (!legacy) throw new Error('the legacy token Secret was not filled');

    const m = server.running.material;
    const cert = issueClientCertificate(m.clientCaPems[0], m.caKeyPem!, 'bench-cert', ['bench']);
    const agent = (tls: { cert?: string; key?: string } = {}) => new https.Agent({ keepAlive: true, maxSockets: 1, ca: m.caCertPem, ...tls });
    const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
    const methods: Method[] = [
      { name: 'static token (--token-auth-file)', agent: agent(), headers: bearer('static-bench-token') },
      { name: 'anonymous', agent: agent(), headers: {} },
      { name: 'client certificate (kept-alive connection)', agent: agent({ cert: cert.certPem, key: cert.keyPem }), headers: {} },
      { name: 'bootstrap token', agent: agent(), headers: bearer('benchx.0123456789abcdef') },
      { name: 'service-account token (TokenRequest, lookup)', agent: agent(), headers: bearer(bound) },
      { name: 'service-account token (legacy Secret)', agent: agent(), headers: bearer(legacy) },
    ];
    const url = new URL('/version', server.running.url);
    const means = new Map<string, number[]>(methods.map((mt) => [mt.name, []]));
    for (const method of methods) for (let i = 0; i < 50; i++) if ((await get(url, method)) !== 200) throw new Error(`${method.name}: not 200`);
    for (let round = 0; round < ROUNDS; round++) {
      for (const method of methods) {
        const started = process.hrtime.bigint();
        for (let i = 0; i < PER_ROUND; i++) await get(url, method);
        means.get(method.name)!.push(Number(process.hrtime.bigint() - started) / 1e3 / PER_ROUND);
      }
    }
    const base = median(means.get(methods[0].name)!);
    console.log(`authentication cost per request, ${label} (GET /version, one connection, median of ${ROUNDS} rounds x ${PER_ROUND} requests)`);
    for (const method of methods) {
      const us = median(means.get(method.name)!);
      const delta = us - base;
      console.log(`  ${method.name.padEnd(48)} ${us.toFixed(0).padStart(6)} µs/request   ${method === methods[0] ? '(reference)' : `${delta >= 0 ? '+' : ''}${delta.toFixed(0)} µs`}`);
    }
    methods.forEach((mt) => mt.agent.destroy());
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
