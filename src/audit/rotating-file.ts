import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** Rotation limits, as kube's --audit-log-max* flags give them to lumberjack. */
export interface RotationLimits {
  /** Megabytes before the file is rotated; 0 means lumberjack's default of 100. */
  maxSizeMB: number;
  /** Old files kept; 0 keeps all (subject to maxAgeDays). */
  maxBackups: number;
  /** Days an old file is kept, by the time in its name; 0 keeps all. */
  maxAgeDays: number;
  /** Gzip rotated files. */
  compress: boolean;
}

const MEGABYTE = 1024 * 1024;
const DEFAULT_MAX_SIZE_MB = 100;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Go's `2006-01-02T15-04-05.000` in UTC, lumberjack's backup time format. */
function backupTime(date: Date): string {
  return date.toISOString().slice(0, 23).replace(/:/g, '-');
}

function parseBackupTime(text: string): number | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/.exec(text);
  return m ? Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`) : undefined;
}

/**
 * An append-only file rotated as kube's audit log is (lumberjack): when a write would pass
 * the size limit the file is renamed to `<name>-<UTC time><ext>` and a new one started; then
 * backups beyond the count or older than the age are removed. Writes are synchronous, so an
 * event is in the file when the write returns (blocking mode's promise).
 */
export class RotatingFile {
  private fd: number;
  private size: number;
  private readonly maxBytes: number;
  private readonly prefix: string;
  private readonly ext: string;

  constructor(
    readonly path: string,
    private readonly limits: RotationLimits,
  ) {
    this.maxBytes = (limits.maxSizeMB > 0 ? limits.maxSizeMB : DEFAULT_MAX_SIZE_MB) * MEGABYTE;
    this.ext = extname(path);
    this.prefix = `${basename(path, this.ext)}-`;
    mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
    this.fd = openSync(path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  write(text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    if (this.size > 0 && this.size + bytes.length > this.maxBytes) this.rotate();
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written);
    this.size += bytes.length;
  }

  close(): void {
    closeSync(this.fd);
  }

  private rotate(): void {
    closeSync(this.fd);
    // Two rotations within a millisecond must not overwrite one another's backup.
    let time = Date.now();
    const nameAt = (t: number) => join(dirname(this.path), `${this.prefix}${backupTime(new Date(t))}${this.ext}`);
    while (existsSync(nameAt(time)) || existsSync(`${nameAt(time)}.gz`)) time++;
    const backup = nameAt(time);
    renameSync(this.path, backup);
    this.fd = openSync(this.path, 'a', 0o600);
    this.size = 0;
    if (this.limits.compress) this.compress(backup);
    this.removeOld();
  }

  private compress(file: string): void {
    writeFileSync(`${file}.gz`, gzipSync(readFileSync(file)), { mode: 0o600 });
    unlinkSync(file);
  }

  /** The backups of this file, newest first. */
  private backups(): Array<{ file: string; time: number }> {
    const dir = dirname(this.path);
    const found: Array<{ file: string; time: number }> = [];
    for (const name of readdirSync(dir)) {
      if (!name.startsWith(this.prefix)) continue;
      const rest = name.slice(this.prefix.length).replace(/\.gz$/, '');
      if (!rest.endsWith(this.ext)) continue;
      const time = parseBackupTime(rest.slice(0, rest.length - this.ext.length));
      if (time !== undefined && statSync(join(dir, name)).isFile()) found.push({ file: join(dir, name), time });
    }
    return found.sort((a, b) => b.time - a.time);
  }

  private removeOld(): void {
    if (this.limits.maxBackups <= 0 && this.limits.maxAgeDays <= 0) return;
    let kept = this.backups();
    const remove: string[] = [];
    if (this.limits.maxBackups > 0 && kept.length > this.limits.maxBackups) {
      remove.push(...kept.slice(this.limits.maxBackups).map((b) => b.file));
      kept = kept.slice(0, this.limits.maxBackups);
    }
    if (this.limits.maxAgeDays > 0) {
      const cutoff = Date.now() - this.limits.maxAgeDays * DAY_MS;
      remove.push(...kept.filter((b) => b.time < cutoff).map((b) => b.file));
    }
    for (const file of remove) unlinkSync(file);
  }
}
