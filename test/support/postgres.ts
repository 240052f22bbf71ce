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

/** Set by the e2e global setup to the reachable PostgreSQL URL ('' when none answers). */
export const REACHABLE_POSTGRES_ENV = 'PLATFORM_TEST_REACHABLE_POSTGRES';

/** The PostgreSQL URL the global setup found, known while test files are collected. */
export function reachablePostgresUrl(): string | undefined {
  const found = process.env[REACHABLE_POSTGRES_ENV];
  if (found === undefined) throw new Error('reachablePostgresUrl() needs the e2e global setup (test/support/global-setup.ts)');
  return found || undefined;
}

/**
 * A describe block that needs PostgreSQL: run when a server answers, else reported as skipped
 * with the reason in its name (never passed without running).
 */
export function describeWithPostgres(name: string, body: (url: string) => void): void {
  const url = reachablePostgresUrl();
  if (url) describe(name, () => body(url));
  else describe.skip(`${name} (skipped: no PostgreSQL server is reachable; set DATABASE_URL)`, () => body(''));
}

export { createScratchDatabase } from '../../bench/scratch-database';
