import { Logger } from '@nestjs/common';
import { FSWatcher, watch } from 'node:fs';
import { dirname } from 'node:path';

/** Editors write a file in several steps (truncate, write, rename): wait for them to settle. */
const EVENT_SETTLE_MS = 100;

/** What a configuration controller counts: each automatic reload's outcome, and the bytes in force. */
export interface ConfigReloadRecorder {
  reload(status: 'success' | 'failure'): void;
  configInfo(data: string): void;
}

export interface ConfigFileReloaderOptions<T> {
  path: string;
  intervalMs: number;
  /** Names the configuration in log lines (`authorization config`). */
  subject: string;
  /** Reads the file's text; throws when it cannot be read. */
  read(path: string): string;
  /** Decodes and validates file contents; throws when they are not a valid configuration. */
  load(data: string): Promise<T>;
  /** Builds and installs a new configuration; throws when that is impossible. */
  apply(config: T): Promise<void>;
  record: ConfigReloadRecorder;
}

export type ReloadOutcome = 'unchanged' | 'reloaded' | 'failed';

/**
 * kube's configuration-file reload loop (authorization and authentication configuration):
 * the file is re-read when its directory changes (a watch on the directory sees editors that
 * replace the file and mounted ConfigMaps that swap a symlink) and at least every interval.
 * Unchanged bytes or an unchanged configuration do nothing; an unreadable, invalid or
 * unbuildable file keeps the configuration in force and counts a failed reload; a new valid
 * one replaces it and counts a success.
 */
export class ConfigFileReloader<T> {
  private readonly logger: Logger;
  private lastData: string;
  private lastConfig: string;
  private watcher: FSWatcher | undefined;
  private interval: NodeJS.Timeout | undefined;
  private settle: NodeJS.Timeout | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly options: ConfigFileReloaderOptions<T>,
    initialData: string,
    initialConfig: T,
  ) {
    this.logger = new Logger(options.subject.replace(/(^|\s)(\w)/g, (_, __, c: string) => c.toUpperCase()));
    this.lastData = initialData;
    this.lastConfig = JSON.stringify(initialConfig);
    options.record.configInfo(initialData);
  }

  start(): void {
    try {
      this.watcher = watch(dirname(this.options.path), () => this.scheduleCheck());
      this.watcher.on('error', (err) => this.logger.error(`watching ${this.options.subject} file: ${err.message}`));
    } catch (err) {
      this.logger.error(`watching ${this.options.subject} file: ${(err as Error).message}; checking every ${this.options.intervalMs}ms only`);
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
      data = this.options.read(this.options.path);
    } catch (err) {
      return this.failed(err);
    }
    if (data === this.lastData) return 'unchanged';
    this.logger.log(`found new ${this.options.subject} data`);
    this.lastData = data;
    let config: T;
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
    this.logger.log(`reloaded ${this.options.subject}`);
    this.options.record.reload('success');
    this.options.record.configInfo(data);
    return 'reloaded';
  }

  private failed(err: unknown): ReloadOutcome {
    this.logger.error(`reloading ${this.options.subject}: ${(err as Error).message}`);
    this.options.record.reload('failure');
    return 'failed';
  }
}
