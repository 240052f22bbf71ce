import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { PostgresConnections } from '../../../src/storage/engine/postgres-connections';
import { describeWithPostgres } from '../../support/postgres';

/**
 * A server that dies sends each of its sessions a FATAL message, and node-postgres emits it as
 * an 'error' event even when no statement is running; an event with no listener ends the
 * process. Our sessions are listened to by whoever holds them, and by the connection layer
 * in between (while being checked, handed over or closed): a failover killed a replica this way.
 */
describeWithPostgres('PostgreSQL sessions that fail while nobody uses them', (pgUrl) => {
  const url = new URL(pgUrl);
  const target = `${url.hostname}:${url.port || 5432}`;
  // The same server named twice: sessions of the class that chooses hosts and checks roles.
  const multiHost = `postgres://${url.username}@${target},${target}${url.pathname}?target_session_attrs=read-write`;
  let admin: Client;
  let warn: jest.SpyInstance;

  beforeAll(async () => {
    admin = new Client({ connectionString: pgUrl });
    await admin.connect();
  });
  afterAll(async () => admin.end());
  beforeEach(() => (warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined)));
  afterEach(() => warn.mockRestore());

  it.each([
    ['one host', pgUrl],
    ['several hosts', multiHost],
  ])('%s: a session its server ends while idle does not end the process; its statements fail', async (_name, databaseUrl) => {
    const connections = new PostgresConnections(databaseUrl);
    const session = await connections.connect();
    const { rows } = await session.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const ended = new Promise((resolve) => session.once('end', resolve));
    // FATAL 57P01 to an idle session, as every session of a dying server gets.
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    await ended;
    // The FATAL, then the closed socket.
    expect(warn.mock.calls.map(([message]) => String(message))[0]).toMatch(/^a PostgreSQL session failed while unused: terminating connection due to administrator command/);
    await expect(session.query('SELECT 1')).rejects.toThrow();
  });
});
