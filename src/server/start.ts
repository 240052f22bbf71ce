import { INestApplication, Logger, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { mkdirSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { isIPv6 } from 'node:net';
import { join } from 'node:path';
import { AppModule } from '../app.module';
import { ServerOptions } from '../config/options';
import { StorageTestHooks } from '../storage/storage.module';
import { ensureServingMaterial, ServingMaterial } from './certificates';
import { writeAdminKubeconfig } from './kubeconfig';

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

/**
 * Starts the HTTPS server: serving material from the data dir (generated once), the Nest
 * application (storage opens and migrates during module init), the listener, and the
 * admin kubeconfig once the port is known.
 */
export async function startServer(options: ServerOptions, hooks: StartHooks = {}): Promise<RunningServer> {
  mkdirSync(options.dataDir, { recursive: true });
  for (const warning of options.featureGates.warnings) new Logger('FeatureGates').warn(warning);
  const material = await ensureServingMaterial(options);
  const app = await NestFactory.create(AppModule.forRoot(options, hooks.storage), {
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
  try {
    await app.listen(options.securePort, options.bindAddress);
  } catch (err) {
    await app.close();
    throw err;
  }
  const port = (app.getHttpServer().address() as AddressInfo).port;
  const url = `https://${urlHost(options.bindAddress)}:${port}`;
  const kubeconfigPath = join(options.dataDir, 'admin.kubeconfig');
  if (options.writeAdminKubeconfig) await writeAdminKubeconfig(options.dataDir, url, material);
  return { app, url, port, material, kubeconfigPath, close: () => app.close() };
}
