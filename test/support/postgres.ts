import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** The PostgreSQL server tests may use: DATABASE_URL, else the local one if it answers. */
export async function reachablePostgres(): Promise<string | undefined> {
  const url = process.env.DATABASE_URL || DEFAULT_PG_URL;
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return url;
  } catch {
    return undefined;
  }
}

/** A fresh database on that server (so separate processes share it without schema tricks). */
export async function createScratchDatabase(url: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `platform_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
