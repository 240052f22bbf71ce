import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';

/** Another live server holds the embedded database directory. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(`data directory ${dir} is in use by another server (pid ${pid})`);
    this.name = 'DataDirInUseError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(path: string): number | null {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * An exclusive lock on the embedded database directory: a file holding the owner's pid.
 * The file appears atomically with its content (written aside, then hard-linked into
 * place, which fails if it exists), so a reader never sees a half-written lock. A lock
 * whose process is gone (a crash) is stale and taken over.
 */
export class DataDirLock {
  private released = false;

  private constructor(private readonly path: string) {}

  /** Takes the lock at `path` for the directory `dir` (named in the error). */
  static acquire(path: string, dir: string): DataDirLock {
    const staged = `${path}.${process.pid}`;
    writeFileSync(staged, `${process.pid}\n`, { mode: 0o600 });
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          linkSync(staged, path);
          return new DataDirLock(path);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        }
        const owner = readPid(path);
        if (owner !== null && isAlive(owner)) throw new DataDirInUseError(dir, owner);
        try {
          unlinkSync(path);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
      }
      throw new Error(`could not lock data directory ${dir}: its lock file ${path} keeps changing`);
    } finally {
      unlinkSync(staged);
    }
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    // Only remove the file if it is still ours (a stale-lock takeover may have replaced it).
    if (readPid(this.path) !== process.pid) return;
    try {
      unlinkSync(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}
