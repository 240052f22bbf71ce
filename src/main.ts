import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { AuthorizationConfigError } from './authorization/config/load';
import { FlagError, HelpRequested, parseServerFlags } from './config/flags';
import { DataDirInUseError } from './storage/data-dir-lock';
import { migrateStore, startServer } from './server/start';

/** Failures that are the operator's to fix: one line, no stack trace. */
const SETTLED_FAILURES = [FlagError, DataDirInUseError, AuthorizationConfigError];

async function main(): Promise<number> {
  const options = parseServerFlags(process.argv.slice(2), process.env);
  if (options.migrateOnly) {
    await migrateStore(options);
    process.stdout.write('migrations applied\n');
    return 0;
  }

  const logger = new Logger('Server');
  const server = await startServer(options);
  process.stdout.write(`serving on ${server.url}\nadmin kubeconfig: ${server.kubeconfigPath}\n`);

  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      process.stdout.write(`${signal} received, shutting down\n`);
      server.close().then(resolve, (err) => {
        logger.error(err);
        resolve();
      });
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof HelpRequested) {
      process.stdout.write(err.helpText);
      process.exit(0);
    }
    // kube-apiserver exits 1 on any failure to start, a bad flag included.
    const settled = SETTLED_FAILURES.some((kind) => err instanceof kind);
    process.stderr.write(`error: ${settled ? (err as Error).message : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
