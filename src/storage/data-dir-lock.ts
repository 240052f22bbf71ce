import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';

export class DataDirInUseError extends Error {
  constructor(dir: string, pid: number) {
    super(`data directory ${dir} is in use by another server (pid ${pid})`);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * An exclusive lock on the embedded database directory: a file holding the owner's pid,
 * created exclusively. A lock whose process is gone is stale and taken over.
 */
export class DataDirLock {
  private constructor(private readonly path: string) {}

  static acquire(path: string, dir: string): DataDirLock {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(path, 'wx', 0o600);
        writeSync(fd, String(process.pid));
        closeSync(fd);
        return new DataDirLock(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const pid = Number(readFileSync(path, 'utf8').trim());
        if (Number.isInteger(pid) && pid > 0 && alive(pid)) throw new DataDirInUseError(dir, pid);
        unlinkSync(path);
      }
    }
    throw new Error(`could not lock ${dir}`);
  }

  release(): void {
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone: nothing to release.
    }
  }
}
