import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A small file system of its own (a tmpfs), for tests of a full disk: filled on purpose,
 * freed again by deleting a file placed on it, without touching the machine's other disks.
 * Mounting needs Linux and the right to mount (root, or a container allowed to): where that is
 * missing, `smallFilesystemUnavailable()` says why and the tests report themselves skipped.
 */
export interface SmallFilesystem {
  dir: string;
  /** Bytes still free for files. */
  free(): number;
  /** Writes a file of zeros of this many bytes (tmpfs allocates every page written). */
  fill(name: string, bytes: number): string;
  unmount(): void;
}

function mount(dir: string, sizeMb: number): void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
}

function unmount(dir: string): void {
  execFileSync('umount', [dir], { stdio: 'pipe' });
}

let probed: string | null | undefined;

/** Why no small file system can be mounted here, or undefined when one can (probed once, mounting and unmounting one). */
export function smallFilesystemUnavailable(): string | undefined {
  if (probed !== undefined) return probed ?? undefined;
  probed = null;
  if (process.platform !== 'linux') probed = `mounting a tmpfs needs Linux (this is ${process.platform})`;
  else {
    const dir = mkdtempSync(join(tmpdir(), 'small-fs-probe-'));
    try {
      mount(dir, 1);
      unmount(dir);
    } catch (err) {
      const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
      probed = `cannot mount a tmpfs here (${stderr || (err as Error).message})`;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return probed ?? undefined;
}

/** Mounts a tmpfs of `sizeMb` MiB in a new temporary directory. */
export function mountSmallFilesystem(sizeMb: number): SmallFilesystem {
  const dir = mkdtempSync(join(tmpdir(), 'small-fs-'));
  mount(dir, sizeMb);
  return {
    dir,
    free() {
      const stats = statfsSync(dir);
      return stats.bavail * stats.bsize;
    },
    fill(name, bytes) {
      const path = join(dir, name);
      writeFileSync(path, Buffer.alloc(Math.max(0, bytes)));
      return path;
    },
    unmount() {
      try {
        unmount(dir);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
