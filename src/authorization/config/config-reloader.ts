import { Logger } from '@nestjs/common';
import { FSWatcher, watch } from 'node:fs';
import { dirname } from 'node:path';
import { recordAuthorizationConfigInfo, recordAuthorizationConfigReload } from '../../metrics/authorization-config-metrics';
import { readAuthorizationConfigFile } from './load';
import { AuthorizationConfiguration } from './types';

/** Editors write a file in several steps (truncate, write, rename): wait for them to settle. */
const EVENT_SETTLE_MS = 100;

export interface ReloaderOptions {
  path: string;
  intervalMs: number;
  /** Decodes and validates file contents; throws when they are not a valid configuration. */
  load(data: string): Promise<AuthorizationConfiguration>;
  /** Builds and installs the chain of a new configuration; throws when that is impossible. */
  apply(config: AuthorizationConfiguration): Promise<void>;
}

export type ReloadOutcome = 'unchanged' | 'reloaded' | 'failed';

/**
 * kube's authorization-config reload loop: the file is re-read when its directory changes
 * (a watch on the directory sees editors that replace the file and mounted ConfigMaps that
 * swap a symlink) and at least every interval. Unchanged bytes or an unchanged
 * configuration do nothing; an unreadable, invalid or unbuildable file keeps the chain in
 * force and counts a failed reload; a new valid one replaces the chain and counts a success.
 */
export class AuthorizationConfigReloader {
  private readonly logger = new Logger('AuthorizationConfig');
  private lastData: string;
  private lastConfig: string;
  private watcher: FSWatcher | undefined;
  private interval: NodeJS.Timeout | undefined;
  private settle: NodeJS.Timeout | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly options: ReloaderOptions,
    initialData: string,
    initialConfig: AuthorizationConfiguration,
  ) {
    this.lastData = initialData;
    this.lastConfig = JSON.stringify(initialConfig);
    recordAuthorizationConfigInfo(initialData);
  }

  start(): void {
    try {
      this.watcher = watch(dirname(this.options.path), () => this.scheduleCheck());
      this.watcher.on('error', (err) => this.logger.error(`watching authorization config file: ${err.message}`));
    } catch (err) {
      this.logger.error(`watching authorization config file: ${(err as Error).message}; checking every ${this.options.intervalMs}ms only`);
    }
    this.interval = setInterval(() => void this.check(), this.options.intervalMs);
    this.interval.unref();
  }

  stop(): void {
    this.stopped = true;
    this.watcher?.close();
    clearInterval(this.interval);
    clearTimeout(this.settle);
  }

  /** Checks the file now (checks never overlap; a check asked for during one runs after it). */
  check(): Promise<ReloadOutcome> {
    const run = this.queue.then(() => this.checkOnce());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private scheduleCheck(): void {
    if (this.stopped) return;
    clearTimeout(this.settle);
    this.settle = setTimeout(() => void this.check(), EVENT_SETTLE_MS);
  }

  private async checkOnce(): Promise<ReloadOutcome> {
    if (this.stopped) return 'unchanged';
    let data: string;
    try {
      data = readAuthorizationConfigFile(this.options.path);
    } catch (err) {
      return this.failed(err);
    }
    if (data === this.lastData) return 'unchanged';
    this.logger.log('found new authorization config data');
    this.lastData = data;
    let config: AuthorizationConfiguration;
    try {
      config = await this.options.load(data);
    } catch (err) {
      return this.failed(err);
    }
    const configText = JSON.stringify(config);
    if (configText === this.lastConfig) return 'unchanged';
    try {
      await this.options.apply(config);
    } catch (err) {
      return this.failed(err);
    }
    this.lastConfig = configText;
    this.logger.log('reloaded authorization config');
    recordAuthorizationConfigReload('success');
    recordAuthorizationConfigInfo(data);
    return 'reloaded';
  }

  private failed(err: unknown): ReloadOutcome {
    this.logger.error(`reloading authorization config: ${(err as Error).message}`);
    recordAuthorizationConfigReload('failure');
    return 'failed';
  }
}
