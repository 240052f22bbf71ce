import { INestApplication, Logger, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { existsSync, rmSync } from 'node:fs';
import { AddressInfo, isIPv6, Server } from 'node:net';
import { join } from 'node:path';
import { AppModule } from './app.module';
import { FlagError } from '../config/flags';
import { ServerOptions } from '../config/options';
import { DataDirInUseError } from '../storage/data-dir-lock';
import { Database, DatabaseUnreachableError, openDatabase } from '../storage/database';
import { ensureServingMaterial, ServingMaterial } from './certificates';
import { loadConfiguration } from './configuration';
import { writeAdminKubeconfig } from './kubeconfig';
import { reservePort } from './port';

/** How long an idle keep-alive connection stays open. */
const IDLE_CONNECTION_TIMEOUT_MS = 90_000;

export interface RunningServer {
  app: INestApplication;
  /** The https URL clients use. */
  url: string;
  port: number;
  material: ServingMaterial;
  kubeconfigPath: string;
  close(): Promise<void>;
}

/** Settings only tests use: a migrated template for the embedded engine, a schema on PostgreSQL. */
export interface StorageTestHooks {
  templateDump?: Uint8Array;
  schema?: string;
}

export interface StartHooks {
  logLevels?: LogLevel[];
  /** Test-only storage settings (template database, isolated schema). */
  storage?: StorageTestHooks;
}

/** The host part of the URL written into the kubeconfig for a bind address. */
function urlHost(bindAddress: string): string {
  if (bindAddress === '0.0.0.0' || bindAddress === '::' || bindAddress === '') return '127.0.0.1';
  return isIPv6(bindAddress) ? `[${bindAddress}]` : bindAddress;
}

/** Opens and migrates the configured store; an unreachable PostgreSQL is a bad --database-url. */
async function openStore(options: ServerOptions, hooks: StorageTestHooks = {}): Promise<Database> {
  try {
    return await openDatabase({ databaseUrl: options.databaseUrl, dataDir: options.dataDir, fsync: options.embeddedFsync, sharedBuffersBytes: options.embeddedSharedBuffersBytes, ...hooks });
  } catch (err) {
    if (err instanceof DatabaseUnreachableError) throw FlagError.about('--database-url', err.message);
    throw err;
  }
}

/** `--migrate-only`: checks the configuration, applies the migrations and closes the store. */
export async function migrateStore(options: ServerOptions): Promise<void> {
  await loadConfiguration(options);
  const db = await openStore(options);
  await db.close();
}

/**
 * Starts the HTTPS server. First everything the flags name is read and checked and the port
 * is taken, so a bad setting stops the start before anything slow or lasting happens; then
 * the store (opened and migrated), the serving material from the data dir (generated once),
 * the Nest application, the listener, and the admin kubeconfig once the port is known. A
 * start that fails closes what it opened and removes a data directory it created.
 */
export async function startServer(options: ServerOptions, hooks: StartHooks = {}): Promise<RunningServer> {
  const configuration = await loadConfiguration(options);
  for (const warning of configuration.warnings) new Logger('Configuration').warn(warning);
  const reservation = await reservePort(options.securePort, options.bindAddress);
  const newDataDir = !existsSync(options.dataDir);
  let db: Database | undefined;
  let app: INestApplication | undefined;
  try {
    db = await openStore(options, hooks.storage);
    const material = await ensureServingMaterial(options, configuration.serving);
    app = await NestFactory.create(AppModule.forRoot(configuration, db), {
      httpsOptions: {
        key: material.servingKeyPem,
        cert: material.servingCertPem,
        ca: material.clientCaPems,
        requestCert: true,
        rejectUnauthorized: false,
      },
      bodyParser: false,
      abortOnError: false,
      // Nest's route-mapping chatter is 'log' level; operators see warnings and errors.
      logger: hooks.logLevels ?? ['warn', 'error', 'fatal'],
    });
    // Clients (kubectl, informers, load balancers) keep connections open between requests;
    // Node's 5 s default would close idle ones under them. 90 s, as kube-apiserver's idle timeout.
    // kube answers without an X-Powered-By header.
    (app.getHttpAdapter().getInstance() as { disable(setting: string): void }).disable('x-powered-by');
    const http = app.getHttpServer() as import('node:https').Server;
    http.keepAliveTimeout = IDLE_CONNECTION_TIMEOUT_MS;
    http.headersTimeout = IDLE_CONNECTION_TIMEOUT_MS + 1000;
    await reservation.release();
    await app.listen(options.securePort, options.bindAddress);
    const port = ((app.getHttpServer() as Server).address() as AddressInfo).port;
    const url = `https://${urlHost(options.bindAddress)}:${port}`;
    const kubeconfigPath = join(options.dataDir, 'admin.kubeconfig');
    if (options.writeAdminKubeconfig) await writeAdminKubeconfig(options.dataDir, url, material);
    const [started, store] = [app, db];
    return {
      app: started,
      url,
      port,
      material,
      kubeconfigPath,
      async close() {
        await started.close();
        await store.close();
      },
    };
  } catch (err) {
    await reservation.release();
    await app?.close().catch(() => undefined);
    await db?.close().catch(() => undefined);
    // Another server holding a directory this start saw as new created it first: not ours to remove.
    if (newDataDir && !(err instanceof DataDirInUseError)) rmSync(options.dataDir, { recursive: true, force: true });
    throw err;
  }
}
