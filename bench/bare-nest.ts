import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { readFileSync } from 'node:fs';

/**
 * A child process of the process benchmark (bench/process.ts): a bare Nest + Express HTTPS app
 * with one GET /readyz, the floor for start-up time, idle memory and idle CPU.
 * Arguments: the port, then the serving key and certificate files.
 */
@Controller()
class ReadyController {
  @Get('readyz')
  ready() {
    return 'ok';
  }
}

@Module({ controllers: [ReadyController] })
class BareModule {}

async function main() {
  const [port, keyFile, certFile] = process.argv.slice(2);
  const httpsOptions = { key: readFileSync(keyFile), cert: readFileSync(certFile) };
  const app = await NestFactory.create(BareModule, { httpsOptions, logger: ['error'] });
  await app.listen(Number(port), '127.0.0.1');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
