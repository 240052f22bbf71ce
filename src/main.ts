import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { AuthorizationConfigError } from './authorization/config/load';
import { FlagError, HelpRequested, parseServerFlags } from './config/flags';
import { DataDirInUseError } from './storage/engine/data-dir-lock';
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
  // The first SIGTERM or SIGINT starts the graceful termination; a second one exits at once (1), as kube does.
  // Handlers are in place before anyone can learn the server is up (the "serving on" line), so a signal sent
  // right after it never meets Node's default action; one that comes while the server starts stops it once started.
  let firstSignal: NodeJS.Signals | undefined;
  let onFirstSignal: ((signal: NodeJS.Signals) => void) | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstSignal) {
      process.stdout.write(`${signal} received again, exiting at once\n`);
      process.exit(1);
    }
    firstSignal = signal;
    process.stdout.write(`${signal} received, shutting down\n`);
    onFirstSignal?.(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const server = await startServer(options);
  process.stdout.write(`serving on ${server.url}\nadmin kubeconfig: ${server.kubeconfigPath}\n`);

  return new Promise<number>((resolve) => {
    onFirstSignal = (signal) =>
      server.shutdown(`${signal} received`).then(
        () => resolve(0),
        (err) => {
          logger.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
          resolve(1);
        },
      );
    if (firstSignal) onFirstSignal(firstSignal);
  });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof HelpRequested) {
      process.stdout.write(err.helpText);
      process.exit(0);
    }
    // kube-apiserver exits 1 on any failure to start, a bad flag included; every bad flag is a line.
    const settled = SETTLED_FAILURES.some((kind) => err instanceof kind);
    const lines = err instanceof FlagError ? err.problems : [settled ? (err as Error).message : err instanceof Error ? (err.stack ?? err.message) : String(err)];
    for (const line of lines) process.stderr.write(`error: ${line}\n`);
    process.exit(1);
  },
);
