import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirInUseError, DataDirLock } from '../../../src/storage/engine/data-dir-lock';

describe('DataDirLock', () => {
  let dir: string;
  let lockPath: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'platform-lock-'));
    lockPath = join(dir, 'db.lock');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('holds the pid while locked and removes the file on release', () => {
    const lock = DataDirLock.acquire(lockPath, dir);
    expect(readFileSync(lockPath, 'utf8').trim()).toBe(String(process.pid));
    expect(() => DataDirLock.acquire(lockPath, dir)).toThrow(new DataDirInUseError(dir, process.pid));
    lock.release();
    expect(existsSync(lockPath)).toBe(false);
    DataDirLock.acquire(lockPath, dir).release();
  });

  it('takes over a lock whose process is gone', () => {
    const exited = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    writeFileSync(lockPath, exited.stdout.toString());
    const lock = DataDirLock.acquire(lockPath, dir);
    expect(readFileSync(lockPath, 'utf8').trim()).toBe(String(process.pid));
    lock.release();
  });

  it('takes over an unreadable lock, and leaves a lock it no longer owns alone', () => {
    writeFileSync(lockPath, 'garbage');
    const lock = DataDirLock.acquire(lockPath, dir);
    writeFileSync(lockPath, '1'); // replaced by another owner (pid 1 is always alive)
    lock.release();
    expect(readFileSync(lockPath, 'utf8')).toBe('1');
    expect(() => DataDirLock.acquire(lockPath, dir)).toThrow(`data directory ${dir} is in use by another server (pid 1)`);
  });
});
