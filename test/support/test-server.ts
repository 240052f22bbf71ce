import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropTestSchema, newTestSchema } from './db';
import { defaultOptions, ServerOptions } from '../../src/config/options';
import { issueClientCertificate } from '../../src/server/certificates';
import { RunningServer, startServer } from '../../src/server/start';
import { ensureTemplate, readTemplate } from './db-template';
import { ClientIdentity, HttpsClient } from './https-client';

export interface TestServer {
  url: string;
  dataDir: string;
  kubeconfigPath: string;
  /** A client with the admin credential (system:masters). */
  admin: HttpsClient;
  /** A client presenting no credential. */
  anonymous: HttpsClient;
  running: RunningServer;
  /** A client certificate for any user and groups, issued by the server's CA. */
  certFor(user: string, groups?: string[]): ClientIdentity;
  close(): Promise<void>;
}

export interface TestServerOptions {
  options?: Partial<ServerOptions>;
  /** Reuse a data dir (restart tests); a fresh temp dir otherwise. */
  dataDir?: string;
  /** On PostgreSQL: share this schema (several servers on one database). */
  schema?: string;
  /** Keep the data dir / schema on close (restart tests clean up themselves). */
  keep?: boolean;
  /** Use this PostgreSQL URL instead of DATABASE_URL. */
  databaseUrl?: string;
  /** The embedded store whatever DATABASE_URL says (tests of the embedded engine itself). */
  embedded?: boolean;
}

/**
 * Boots the real server over HTTPS on a free port: the embedded store from the migrated
 * template by default, or (with DATABASE_URL) PostgreSQL in a schema of its own.
 */
export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'platform-e2e-'));
  const databaseUrl = opts.embedded ? undefined : (opts.databaseUrl ?? (process.env.DATABASE_URL || undefined));
  const schema = databaseUrl && !opts.databaseUrl ? (opts.schema ?? newTestSchema()) : opts.schema;
  const freshEmbedded = !databaseUrl && !opts.dataDir;
  if (freshEmbedded) await ensureTemplate();
  const options = defaultOptions({ securePort: 0, dataDir, databaseUrl, ...opts.options });
  let running: RunningServer;
  try {
    running = await startServer(options, {
      logLevels: ['error', 'fatal'],
      storage: { schema, templateDump: freshEmbedded ? readTemplate() : undefined },
    });
  } catch (err) {
    // A server that fails to start (tests of start-up errors) leaves nothing behind either.
    if (!opts.keep && !opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (!opts.keep && databaseUrl && schema && !opts.schema) await dropTestSchema(databaseUrl, schema);
    throw err;
  }
  const material = running.material;
  const admin = issueClientCertificate(material.clientCaPems[0], material.caKeyPem!, 'test-admin', ['system:masters']);
  const base = new HttpsClient(running.url, material.caCertPem);
  return {
    url: running.url,
    dataDir,
    kubeconfigPath: running.kubeconfigPath,
    admin: base.withIdentity({ cert: admin.certPem, key: admin.keyPem }),
    anonymous: base,
    running,
    certFor: (user, groups = []) => {
      const c = issueClientCertificate(material.clientCaPems[0], material.caKeyPem!, user, groups);
      return { cert: c.certPem, key: c.keyPem };
    },
    async close() {
      await running.close();
      if (opts.keep) return;
      rmSync(dataDir, { recursive: true, force: true });
      if (databaseUrl && schema && !opts.schema) await dropTestSchema(databaseUrl, schema);
    },
  };
}

export function readCa(server: TestServer): string {
  return readFileSync(join(server.dataDir, 'pki', 'ca.crt'), 'utf8');
}
