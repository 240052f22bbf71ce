import { readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, TestServer } from '../support/test-server';
// The module object itself (not an import copy), so the spy below sees the server's calls.
import fs = require('node:fs');

const ROLES = '/apis/rbac.authorization.platform.io/v1/clusterroles';

/** The host files and directories fsynced while `action` runs (a descriptor's path from /proc). */
async function syncedDuring(action: () => Promise<void>): Promise<string[]> {
  const fsync = fs.fsyncSync;
  const paths: string[] = [];
  const spy = jest.spyOn(fs, 'fsyncSync').mockImplementation((fd: number) => {
    paths.push(readlinkSync(`/proc/self/fd/${fd}`));
    fsync(fd);
  });
  try {
    await action();
  } finally {
    spy.mockRestore();
  }
  return paths;
}

async function createRole(server: TestServer, name: string): Promise<void> {
  const res = await server.admin.post(ROLES, { metadata: { name }, rules: [] });
  expect(res.status).toBe(201);
}

describe('the embedded store on disk', () => {
  it('syncs the write-ahead log to disk before it acknowledges a write (by default)', async () => {
    const server = await startTestServer({ embedded: true, options: { embeddedFsync: true } });
    try {
      const synced = await syncedDuring(() => createRole(server, 'durable'));
      const wal = join(server.dataDir, 'db', 'pg_wal');
      expect(synced.filter((path) => path.startsWith(`${wal}/`)).length).toBeGreaterThanOrEqual(1);
    } finally {
      await server.close();
    }
  });

  it('syncs nothing with --embedded-fsync=false', async () => {
    const server = await startTestServer({ embedded: true, options: { embeddedFsync: false } });
    try {
      expect(await syncedDuring(() => createRole(server, 'fast'))).toEqual([]);
      expect((await server.admin.get(`${ROLES}/fast`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
