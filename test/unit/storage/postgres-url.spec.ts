import { parsePostgresUrl, PostgresUrlError } from '../../../src/storage/engine/postgres-url';

describe('PostgreSQL URLs with several hosts (libpq syntax)', () => {
  it('takes the hosts in order, each with its port or the default one, and target_session_attrs', () => {
    const url = parsePostgresUrl('postgres://app:s3cret@db-a:5433,db-b,10.0.0.3:6432/authz?target_session_attrs=read-write&sslmode=disable');
    expect(url.hosts).toEqual([
      { host: 'db-a', port: 5433 },
      { host: 'db-b', port: 5432 },
      { host: '10.0.0.3', port: 6432 },
    ]);
    expect(url.targetSessionAttrs).toBe('read-write');
    // One URL per host for node-postgres: credentials and other parameters kept, the selection dropped.
    expect(url.forHost(url.hosts[1])).toBe('postgres://app:s3cret@db-b:5432/authz?sslmode=disable');
    // Messages never carry the password.
    expect(url.describe()).toBe('db-a:5433,db-b:5432,10.0.0.3:6432/authz');
  });

  it('reads hosts and ports given as parameters, IPv6 literals, and defaults to any', () => {
    const fromParams = parsePostgresUrl('postgresql://app@/authz?host=h1,h2&port=5432,5433&target_session_attrs=prefer-standby');
    expect(fromParams.hosts).toEqual([
      { host: 'h1', port: 5432 },
      { host: 'h2', port: 5433 },
    ]);
    expect(fromParams.targetSessionAttrs).toBe('prefer-standby');
    expect(fromParams.forHost(fromParams.hosts[1])).toBe('postgresql://app@h2:5433/authz');

    const v6 = parsePostgresUrl('postgres://[::1]:5432,[fe80::2]/authz');
    expect(v6.hosts).toEqual([
      { host: '::1', port: 5432 },
      { host: 'fe80::2', port: 5432 },
    ]);
    expect(v6.targetSessionAttrs).toBe('any');
    expect(v6.forHost(v6.hosts[1])).toBe('postgres://[fe80::2]:5432/authz');
  });

  it('keeps a single-host URL as it was, and a socket directory as a parameter', () => {
    const single = parsePostgresUrl('postgres://postgres@127.0.0.1:5432/test');
    expect(single.hosts).toEqual([{ host: '127.0.0.1', port: 5432 }]);
    expect(single.forHost(single.hosts[0])).toBe('postgres://postgres@127.0.0.1:5432/test');
    const socket = parsePostgresUrl('postgres://postgres@/test?host=/var/run/postgresql');
    expect(socket.forHost(socket.hosts[0])).toBe('postgres://postgres@/test?host=%2Fvar%2Frun%2Fpostgresql&port=5432');
  });

  it.each([
    ['an unknown target_session_attrs', 'postgres://h1,h2/db?target_session_attrs=master', /invalid target_session_attrs "master"/],
    ['a bad port', 'postgres://h1:99999/db', /invalid port "99999"/],
    ['more ports than hosts', 'postgres:///db?host=a,b&port=1,2,3', /2 hosts and 3 ports/],
    ['another scheme', 'mysql://h1/db', /not a PostgreSQL URL/],
  ])('refuses %s', (_what, text, message) => {
    expect(() => parsePostgresUrl(text)).toThrow(PostgresUrlError);
    expect(() => parsePostgresUrl(text)).toThrow(message);
  });

  it('never repeats the password in its errors', () => {
    expect(() => parsePostgresUrl('postgres://app:hunter2@h1:0/db')).toThrow(/postgres:\/\/app:\*\*\*@h1:0\/db/);
  });
});
