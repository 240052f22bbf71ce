import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** A database of its own. */
export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A new database on the PostgreSQL server of `serverUrl` (separate processes can share it without schema tricks),
 * and its removal. Used by the benchmarks and the tests alike.
 */
export async function createScratchDatabase(serverUrl: string, prefix = 'platform'): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new Client({ connectionString: serverUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
