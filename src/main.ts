import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { AuthorizationConfigError } from './authorization/config/load';
import { FlagError, HelpRequested, parseServerFlags } from './config/flags';
import { ServerOptions } from './config/options';
import { DataDirInUseError } from './storage/data-dir-lock';
import { migrateOnly } from './storage/database';
import { startServer } from './server/start';

async function main(): Promise<number> {
  let options: ServerOptions;
  try {
    options = parseServerFlags(process.argv.slice(2), process.env);
  } catch (err) {
    if (err instanceof HelpRequested) {
      process.stdout.write(err.helpText);
      return 0;
    }
    if (err instanceof FlagError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 2;
    }
    throw err;
  }

  if (options.migrateOnly) {
    await migrateOnly(options);
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
  (err) => {
    if (err instanceof DataDirInUseError || err instanceof AuthorizationConfigError) process.stderr.write(`error: ${err.message}\n`);
    else process.stderr.write(`error: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exit(1);
  },
);
