import { Body, Controller, Get, HttpCode, Module, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { NestFactory } from '@nestjs/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AddressInfo } from 'node:net';
import { defaultOptions, ServerOptions } from '../src/config/options';
import { issueClientCertificate } from '../src/server/certificates';
import { startServer, RunningServer } from '../src/server/start';
import { BenchClient } from './client';
import { createScratchDatabase } from './scratch-database';

export { createScratchDatabase };

export interface BenchServer {
  running: RunningServer;
  client(maxSockets?: number): BenchClient;
  close(): Promise<void>;
}


/** Our server on a temp data dir: the embedded store, or a scratch database on PostgreSQL. */
export async function startBenchServer(databaseUrl?: string, overrides: Partial<ServerOptions> = {}): Promise<BenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-bench-'));
  const scratch = databaseUrl ? await createScratchDatabase(databaseUrl) : undefined;
  const url = scratch?.url;
  const dropDb = scratch?.drop;
  const running = await startServer(defaultOptions({ securePort: 0, dataDir, databaseUrl: url, writeAdminKubeconfig: false, ...overrides }), {
    logLevels: ['error'],
  });
  const m = running.material;
  const admin = issueClientCertificate(m.clientCaPems[0], m.caKeyPem!, 'bench-admin', ['system:masters']);
  const clients: BenchClient[] = [];
  return {
    running,
    client: (maxSockets = 32) => {
      const c = new BenchClient(running.url, { ca: m.caCertPem, cert: admin.certPem, key: admin.keyPem }, maxSockets);
      clients.push(c);
      return c;
    },
    async close() {
      clients.forEach((c) => c.close());
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
      await dropDb?.();
    },
  };
}

@Controller()
class BaselineController {
  @Post('baseline')
  @HttpCode(201)
  create() {
    return { kind: 'Status', apiVersion: 'v1', status: 'Success' };
  }

  /** A read that does no work: the floor for list benchmarks. */
  @Get('baseline')
  list() {
    return { kind: 'RoleList', apiVersion: 'rbac.authorization.platform.io/v1', metadata: { resourceVersion: '1' }, items: [] };
  }
}

@Module({ controllers: [BaselineController] })
class BaselineModule {}

/** The baseline: a bare Nest + Express HTTPS endpoint with the same TLS material, no work. */
export async function startBaseline(tls: { key: string; cert: string; ca: string }): Promise<{ url: string; close(): Promise<void> }> {
  const app = await NestFactory.create(BaselineModule, { httpsOptions: { key: tls.key, cert: tls.cert }, logger: ['error'] });
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as AddressInfo).port;
  return { url: `https://127.0.0.1:${port}`, close: () => app.close() };
}

/** Streams held open by the bare fan-out endpoint: every POST is written to each of them. */
const bareWatchers = new Set<Response>();

@Controller()
class BareFanOutController {
  /** A stream that stays open, as a watch does: chunked JSON lines, nothing sent until a POST. */
  @Get('watch')
  watch(@Res() res: Response) {
    res.status(200).setHeader('Content-Type', 'application/json');
    res.setHeader('Transfer-Encoding', 'chunked');
    res.flushHeaders();
    bareWatchers.add(res);
    res.on('close', () => bareWatchers.delete(res));
  }

  /** One event line made once and the same bytes written to every open stream. */
  @Post('watch')
  @HttpCode(201)
  write(@Body() body: { metadata: { name: string } }) {
    const line = Buffer.from(JSON.stringify({ type: 'ADDED', object: body }) + '\n');
    for (const res of bareWatchers) res.write(line);
    return { kind: 'Status', apiVersion: 'v1', status: 'Success' };
  }
}

@Module({ controllers: [BareFanOutController] })
class BareFanOutModule {}

/** The floor of the watch fan-out: a bare Nest + Express HTTPS app that writes each POSTed object to every open GET /watch. */
export async function startBareFanOut(tls: { key: string; cert: string }): Promise<{ url: string; close(): Promise<void> }> {
  const app = await NestFactory.create(BareFanOutModule, { httpsOptions: { key: tls.key, cert: tls.cert }, logger: ['error'] });
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    close: async () => {
      for (const res of bareWatchers) res.end();
      await app.close();
    },
  };
}
