import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IssuerKeys } from '../src/authentication/jwt/issuer-keys';
import { JwtAuthenticator } from '../src/authentication/jwt/jwt-authenticator';
import { validateAndCompile } from '../src/authentication/jwt/load';
import { jwtAuthenticatorFromFlags } from '../src/authentication/jwt/startup';
import { defaultOptions } from '../src/config/options';
import { createCertificateAuthority, issueServingCertificate } from '../src/server/certificates';
import { loadJose } from '../src/authentication/serviceaccount/jose';
import { startBenchServer } from './servers';

/**
 * `npm run bench -- oidc`: what verifying an OpenID Connect ID token costs (RS256, keys
 * cached, claims mapped), next to a static token in the same run: in process (the
 * authenticator alone) and per request (`GET /version` on one kept-alive connection), with
 * the token cache on (kube's default: a success is reused for 10 s) and off.
 */
const ROUNDS = Number(process.env.BENCH_OIDC_ROUNDS ?? 11);
const PER_ROUND = Number(process.env.BENCH_OIDC_REQUESTS ?? 200);

/** An issuer with one RS256 key: discovery and key set over HTTPS. */
async function startIssuer() {
  const jose = await loadJose();
  const { privateKey, publicKey } = await jose.generateKeyPair('RS256');
  const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'bench', alg: 'RS256', use: 'sig' };
  const ca = createCertificateAuthority();
  const tls = issueServingCertificate(ca.certPem, ca.keyPem, '127.0.0.1');
  let issuer = '';
  const server = https.createServer({ key: tls.keyPem, cert: tls.certPem }, (req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(req.url === '/keys' ? { keys: [jwk] } : { issuer, jwks_uri: `${issuer}/keys` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const token = await new jose.SignJWT({ email: 'bench@example.com', email_verified: true, groups: ['bench', 'oidc'] })
    .setProtectedHeader({ alg: 'RS256', kid: 'bench' })
    .setIssuer(issuer)
    .setAudience('platform')
    .setSubject('bench-user')
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(privateKey);
  return { issuer, caPem: ca.certPem, token, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function get(url: URL, agent: https.Agent, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { agent, headers: { Authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function inProcess(issuer: Awaited<ReturnType<typeof startIssuer>>): Promise<void> {
  const oidc = { ...defaultOptions().oidc, issuerUrl: issuer.issuer, clientId: 'platform', usernameClaim: 'email', groupsClaim: 'groups' };
  const loaded = await validateAndCompile({ jwt: [jwtAuthenticatorFromFlags(oidc, issuer.caPem)] }, { disallowedIssuers: [], anonymousConfigurable: false });
  const keys = new IssuerKeys({ issuer: issuer.issuer, certificateAuthority: issuer.caPem });
  await keys.start();
  const authenticator = new JwtAuthenticator(loaded.configuration.jwt[0], loaded.compiled[0], ['RS256'], keys);
  const runs = 2000;
  for (let i = 0; i < 200; i++) await authenticator.authenticate(issuer.token);
  const means: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < runs / 10; i++) await authenticator.authenticate(issuer.token);
    means.push(Number(process.hrtime.bigint() - started) / 1e3 / (runs / 10));
  }
  keys.close();
  console.log(`OIDC ID token verification in process (RS256 2048-bit, cached keys, claims mapped): ${median(means).toFixed(1)} µs/token (median of ${ROUNDS} rounds)`);
}

async function perRequest(issuer: Awaited<ReturnType<typeof startIssuer>>, label: string, tokenCacheTtlMs: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'oidc-bench-'));
  writeFileSync(join(dir, 'tokens.csv'), 'static-bench-token,bench-static,uid-static,"bench"\n');
  writeFileSync(join(dir, 'oidc-ca.pem'), issuer.caPem);
  const server = await startBenchServer(undefined, {
    tokenAuthFile: join(dir, 'tokens.csv'),
    tokenCacheTtlMs,
    oidc: { ...defaultOptions().oidc, issuerUrl: issuer.issuer, clientId: 'platform', usernameClaim: 'email', groupsClaim: 'groups', caFile: join(dir, 'oidc-ca.pem') },
  });
  try {
    const ca = server.running.material.caCertPem;
    const methods = [
      { name: 'static token (--token-auth-file)', token: 'static-bench-token', agent: new https.Agent({ keepAlive: true, maxSockets: 1, ca }) },
      { name: 'OIDC ID token (--oidc-*)', token: issuer.token, agent: new https.Agent({ keepAlive: true, maxSockets: 1, ca }) },
    ];
    const url = new URL('/version', server.running.url);
    for (const m of methods) for (let i = 0; i < 50; i++) if ((await get(url, m.agent, m.token)) !== 200) throw new Error(`${m.name}: not 200`);
    const means = new Map<string, number[]>(methods.map((m) => [m.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const m of methods) {
        const started = process.hrtime.bigint();
        for (let i = 0; i < PER_ROUND; i++) await get(url, m.agent, m.token);
        means.get(m.name)!.push(Number(process.hrtime.bigint() - started) / 1e3 / PER_ROUND);
      }
    }
    const base = median(means.get(methods[0].name)!);
    console.log(`per request, ${label} (GET /version, one connection, median of ${ROUNDS} rounds x ${PER_ROUND} requests)`);
    for (const m of methods) {
      const us = median(means.get(m.name)!);
      console.log(`  ${m.name.padEnd(36)} ${us.toFixed(0).padStart(6)} µs/request   ${m === methods[0] ? '(reference)' : `${us >= base ? '+' : ''}${(us - base).toFixed(0)} µs`}`);
    }
    methods.forEach((m) => m.agent.destroy());
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runOidcBench(): Promise<void> {
  const issuer = await startIssuer();
  try {
    await inProcess(issuer);
    await perRequest(issuer, 'token cache on (default)', 10_000);
    await perRequest(issuer, 'token cache off: every request verified', 0);
  } finally {
    await issuer.close();
  }
}
