import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropTestSchema, newTestSchema } from './db';
import { Clock } from '../../src/apimachinery/clock';
import { defaultOptions, ServerOptions } from '../../src/config/options';
import { issueClientCertificate } from '../../src/server/certificates';
import { RunningServer, startServer } from '../../src/server/start';
import { ensureTemplate, templatePath } from './db-template';
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
  /** The clock the server's time-dependent decisions read (a TestClock, moved instead of waited for). */
  clock?: Clock;
}

/**
 * The key material the first fresh server of a test file generated (its CA, serving certificate, service-account
 * key and admin kubeconfig), given to the next fresh servers of that file: RSA key generation was about half of a
 * test server's start-up CPU. Tests that need distinct authorities make their own.
 */
let seed: { pki: Map<string, Buffer>; kubeconfig: Buffer } | undefined;

function seedKeyMaterial(dataDir: string): void {
  if (!seed) return;
  mkdirSync(join(dataDir, 'pki'), { recursive: true });
  for (const [name, content] of seed.pki) writeFileSync(join(dataDir, 'pki', name), content, { mode: 0o600 });
  writeFileSync(join(dataDir, 'admin.kubeconfig'), seed.kubeconfig, { mode: 0o600 });
}

function keepKeyMaterial(dataDir: string): void {
  const pki = join(dataDir, 'pki');
  const kubeconfig = join(dataDir, 'admin.kubeconfig');
  if (seed || !existsSync(pki) || !existsSync(kubeconfig)) return;
  seed = { pki: new Map(readdirSync(pki).map((name) => [name, readFileSync(join(pki, name))])), kubeconfig: readFileSync(kubeconfig) };
}

/** Client certificates by CA, user and groups: each costs a key pair. */
const clientCertificates = new Map<string, ClientIdentity>();

function clientCertificate(caCertPem: string, caKeyPem: string, user: string, groups: string[]): ClientIdentity {
  const key = JSON.stringify([caCertPem, user, groups]);
  let identity = clientCertificates.get(key);
  if (!identity) {
    const c = issueClientCertificate(caCertPem, caKeyPem, user, groups);
    identity = { cert: c.certPem, key: c.keyPem };
    clientCertificates.set(key, identity);
  }
  return identity;
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
  if (!opts.dataDir) seedKeyMaterial(dataDir);
  // Tests that are about durability ask for fsync; the others need not wait for the disk.
  const options = defaultOptions({ securePort: 0, dataDir, databaseUrl, embeddedFsync: false, ...opts.options });
  let running: RunningServer;
  try {
    running = await startServer(options, {
      logLevels: ['error', 'fatal'],
      storage: { schema, template: freshEmbedded ? templatePath() : undefined },
      clock: opts.clock,
    });
  } catch (err) {
    // A server that fails to start (tests of start-up errors) leaves nothing behind either.
    if (!opts.keep && !opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (!opts.keep && databaseUrl && schema && !opts.schema) await dropTestSchema(databaseUrl, schema);
    throw err;
  }
  if (!opts.dataDir) keepKeyMaterial(dataDir);
  const material = running.material;
  const certFor = (user: string, groups: string[] = []) => clientCertificate(material.clientCaPems[0], material.caKeyPem!, user, groups);
  const base = new HttpsClient(running.url, material.caCertPem);
  return {
    url: running.url,
    dataDir,
    kubeconfigPath: running.kubeconfigPath,
    admin: base.withIdentity(certFor('test-admin', ['system:masters'])),
    anonymous: base,
    running,
    certFor,
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
