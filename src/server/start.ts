import { ApiIncomingMessage, ApiServerResponse } from './api-incoming-message';
import { INestApplication, Logger, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { existsSync, rmSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { join } from 'node:path';
import { AppModule } from './app.module';
import { Clock } from '../apimachinery/clock';
import { parseRelease } from '../apimachinery/release';
import { metricsCatalog } from '../metrics/registry';
import { FlagError } from '../config/flags';
import { ServerOptions } from '../config/options';
import { insecureCipherSuites, TlsHandshakeSettings, tlsHandshakeSettings } from '../config/tls';
import { DataDirInUseError } from '../storage/engine/data-dir-lock';
import { Database, DatabaseUnreachableError, openDatabase } from '../storage/engine/database';
import { ensureServingMaterial, ServingMaterial } from './certificates';
import { completeConfiguration, loadConfiguration } from './configuration';
import { writeAdminKubeconfig } from './kubeconfig';
import { reservePort } from './port';
import { ALL_PROBES, HealthChecks } from '../health/health-checks';
import { ChangeFeedService } from '../storage/changefeed/change-feed.service';
import { SharedInformerFactory } from '../storage/informer/shared-informer-factory';
import { httpLog } from './httplog';
import { RequestPipelineMiddleware } from '../endpoints/filters/request-pipeline.middleware';
import { KubeLogger } from './logging';
import { GracefulShutdown } from './shutdown';

/** How long an idle keep-alive connection stays open. */
const IDLE_CONNECTION_TIMEOUT_MS = 90_000;
/** How long the start waits for the informers' first lists before it serves anyway. */
const CACHE_SYNC_WAIT_MS = 10_000;

export interface RunningServer {
  app: INestApplication;
  /** The https URL clients use. */
  url: string;
  port: number;
  material: ServingMaterial;
  kubeconfigPath: string;
  /** Stops at once: the application, then the store (tests). */
  close(): Promise<void>;
  /** kube's graceful termination (SIGTERM, SIGINT): see GracefulShutdown. */
  shutdown(reason: string): Promise<void>;
}

/** Settings only tests use: a template of their own for the embedded engine, a schema on PostgreSQL. */
export interface StorageTestHooks {
  template?: string | false;
  schema?: string;
}

export interface StartHooks {
  logLevels?: LogLevel[];
  /** Test-only storage settings (template database, isolated schema). */
  storage?: StorageTestHooks;
  /** The clock time-dependent decisions read (tests move it); the system's by default. */
  clock?: Clock;
}

/** The host part of the URL written into the kubeconfig for a bind address. */
function urlHost(bindAddress: string): string {
  if (bindAddress === '0.0.0.0' || bindAddress === '::' || bindAddress === '') return '127.0.0.1';
  return isIPv6(bindAddress) ? `[${bindAddress}]` : bindAddress;
}

/** `--show-hidden-metrics-for-version`, and kube's start-up warning for each deprecated metric still shown. */
function exposeMetrics(options: ServerOptions): void {
  if (options.showHiddenMetricsForVersion) metricsCatalog.showHidden(parseRelease(options.showHiddenMetricsForVersion)!);
  for (const warning of metricsCatalog.deprecationWarnings()) new Logger('Metrics').warn(warning);
}

/**
 * The handshake settings of `--tls-min-version` and `--tls-cipher-suites`, with kube's warning
 * for each insecure suite named.
 */
function tlsHandshakeOptions(options: ServerOptions): TlsHandshakeSettings {
  for (const name of insecureCipherSuites(options.tlsCipherSuites)) new Logger('Server').warn(`Use of insecure cipher '${name}' detected.`);
  return tlsHandshakeSettings(options.tlsMinVersion, options.tlsCipherSuites);
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
  const startedAt = Date.now();
  const logger = new KubeLogger(options.verbosity, options.loggingFormat, process.stderr, hooks.logLevels);
  Logger.overrideLogger(logger);
  const loaded = await loadConfiguration(options);
  for (const warning of loaded.warnings) new Logger('Configuration').warn(warning);
  exposeMetrics(options);
  const reservation = await reservePort(options.securePort, options.bindAddress);
  const newDataDir = !existsSync(options.dataDir);
  let db: Database | undefined;
  let app: INestApplication | undefined;
  try {
    db = await openStore(options, hooks.storage);
    const material = await ensureServingMaterial(options, loaded.serving);
    // The port is known from here (a port of 0 listens on the one reserved), so the
    // default service-account issuer, the server's own URL, is too.
    const port = reservation.port;
    const configuration = completeConfiguration(loaded, material, `https://${urlHost(options.bindAddress)}:${port}`);
    app = await NestFactory.create(AppModule.forRoot(configuration, db, hooks.clock), {
      httpsOptions: {
        key: material.servingKeyPem,
        cert: material.servingCertPem,
        // Client certificates of users and of authenticating proxies; each method checks its own authorities.
        ca: [...material.clientCaPems, ...(configuration.authentication.requestHeader ? [configuration.authentication.requestHeader.clientCaPem] : [])],
        requestCert: true,
        rejectUnauthorized: false,
        ...tlsHandshakeOptions(options),
        // Go's http.DefaultMaxHeaderBytes (1 MiB), as kube: an oversized bearer token is then
        // refused by authentication with a 401 Status rather than by Node's 16 KiB limit.
        // Requests with the properties the pipeline adds declared up front: one shape for all.
        ...({ maxHeaderSize: 1 << 20, IncomingMessage: ApiIncomingMessage, ServerResponse: ApiServerResponse } as object),
      },
      bodyParser: false,
      abortOnError: false,
      // kube's log format and -v; Nest's route-mapping chatter only at high verbosity.
      logger,
    });
    // Before every route: the audit ID and request log, the in-flight count shutdown drains,
    // then the request pipeline (which serves resource requests itself).
    const shutdown = new GracefulShutdown({
      delayMs: options.shutdownDelayMs,
      sendRetryAfter: options.shutdownSendRetryAfter,
      watchGracePeriodMs: options.shutdownWatchTerminationGracePeriodMs,
    });
    app.use(app.get(RequestPipelineMiddleware).asMiddleware(httpLog(logger), shutdown.middleware()));
    const health = app.get(HealthChecks);
    health.register('log', ALL_PROBES, () => logger.check());
    health.setLivezGracePeriod(options.livezGracePeriodMs, startedAt);
    // Clients (kubectl, informers, load balancers) keep connections open between requests;
    // Node's 5 s default would close idle ones under them. 90 s, as kube-apiserver's idle timeout.
    // kube answers without an X-Powered-By header.
    (app.getHttpAdapter().getInstance() as { disable(setting: string): void }).disable('x-powered-by');
    const http = app.getHttpServer() as import('node:https').Server;
    http.keepAliveTimeout = IDLE_CONNECTION_TIMEOUT_MS;
    http.headersTimeout = IDLE_CONNECTION_TIMEOUT_MS + 1000;
    // Start-up work (controllers, informers started in the background) runs first; the caches
    // then get a moment to sync, so a server that says it is serving is ready too (readyz
    // still tells until they do).
    await app.init();
    await app.get(SharedInformerFactory).waitForCacheSync(CACHE_SYNC_WAIT_MS);
    await reservation.release();
    await app.listen(port, options.bindAddress);
    const url = `https://${urlHost(options.bindAddress)}:${port}`;
    const kubeconfigPath = join(options.dataDir, 'admin.kubeconfig');
    if (options.writeAdminKubeconfig) await writeAdminKubeconfig(options.dataDir, url, material);
    new Logger('Server').log(`serving securely on ${options.bindAddress}:${port}`);
    const [started, store] = [app, db];
    let stopping: Promise<void> | null = null;
    const stopApplication = () => {
      stopping ??= (async () => {
        await started.close();
        await store.close();
      })();
      return stopping;
    };
    return {
      app: started,
      url,
      port,
      material,
      kubeconfigPath,
      close: stopApplication,
      shutdown: (reason) =>
        shutdown.run(
          {
            server: started.getHttpServer() as import('node:https').Server,
            markShuttingDown: () => health.markShuttingDown(),
            openWatches: () => started.get(ChangeFeedService).openWatches(),
            endWatches: () => started.get(ChangeFeedService).endWatches(),
            stopApplication,
          },
          reason,
        ),
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
