/**
 * PostgreSQL URLs as libpq reads them, including several hosts: `postgres://h1:5432,h2:5433/db`
 * (or `?host=h1,h2&port=5432,5433`) with `target_session_attrs` choosing which of them a session
 * may use. node-postgres takes one host per connection, so the URL is split here into one
 * single-host URL per host, and connections pick among them (postgres-connections.ts).
 */

/** libpq's `target_session_attrs`: what a session must be for a host to be kept. */
export const TARGET_SESSION_ATTRS = ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'] as const;
export type TargetSessionAttrs = (typeof TARGET_SESSION_ATTRS)[number];

export interface PostgresHost {
  host: string;
  port: number;
}

export interface PostgresUrl {
  /** The hosts in the order they are tried. */
  hosts: PostgresHost[];
  targetSessionAttrs: TargetSessionAttrs;
  /** The URL naming only `host` (everything else as given, target_session_attrs dropped). */
  forHost(host: PostgresHost): string;
  /** Hosts, ports and database for messages, never the user or password. */
  describe(): string;
}

/** A URL that is not one (or names an unknown target_session_attrs). */
export class PostgresUrlError extends Error {}

const DEFAULT_PORT = 5432;
/** Parameters that concern host selection only: node-postgres must not see them. */
const SELECTION_PARAMS = ['target_session_attrs', 'host', 'port'];

/** `h`, `h:1`, `[::1]`, `[::1]:1` */
function splitHostPort(item: string): { host: string; port?: string } {
  const bracketed = /^\[([^\]]+)\](?::(\d*))?$/.exec(item);
  if (bracketed) return { host: bracketed[1], port: bracketed[2] || undefined };
  const colon = item.lastIndexOf(':');
  if (colon < 0) return { host: item };
  return { host: item.slice(0, colon), port: item.slice(colon + 1) || undefined };
}

function portOf(text: string | undefined, url: string): number {
  if (text === undefined || text === '') return DEFAULT_PORT;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65535) throw new PostgresUrlError(`invalid port ${JSON.stringify(text)} in the PostgreSQL URL ${redacted(url)}`);
  return port;
}

/** The URL without its password, for messages. */
function redacted(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:@/]*):[^@/]*@/i, '$1:***@');
}

const hostText = (h: PostgresHost) => `${h.host.includes(':') ? `[${h.host}]` : h.host}:${h.port}`;

/** Parses a `postgres://` or `postgresql://` URL with one or more hosts. */
export function parsePostgresUrl(url: string): PostgresUrl {
  const match = /^(postgres(?:ql)?:\/\/)([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/i.exec(url);
  if (!match) throw new PostgresUrlError(`not a PostgreSQL URL (postgres://...): ${redacted(url)}`);
  const [, scheme, authority, path, query = '', fragment = ''] = match;
  const at = authority.lastIndexOf('@');
  const userinfo = at >= 0 ? authority.slice(0, at + 1) : '';
  const hostList = at >= 0 ? authority.slice(at + 1) : authority;
  const params = new URLSearchParams(query.slice(1));

  const attrs = params.get('target_session_attrs') ?? 'any';
  if (!(TARGET_SESSION_ATTRS as readonly string[]).includes(attrs)) {
    throw new PostgresUrlError(`invalid target_session_attrs ${JSON.stringify(attrs)}: one of ${TARGET_SESSION_ATTRS.join(', ')}`);
  }

  // Hosts in the authority, or (libpq's other spelling) in ?host= and ?port=, comma-separated.
  const fromQuery = params.get('host');
  let hosts: PostgresHost[];
  if (fromQuery !== null && hostList === '') {
    const names = fromQuery.split(',');
    const ports = (params.get('port') ?? '').split(',');
    if (ports.length !== 1 && ports.length !== names.length) throw new PostgresUrlError(`the PostgreSQL URL names ${names.length} hosts and ${ports.length} ports`);
    hosts = names.map((host, i) => ({ host, port: portOf(ports.length === 1 ? ports[0] : ports[i], url) }));
  } else {
    const items = hostList === '' ? [''] : hostList.split(/,(?![^[]*\])/);
    const queryPort = params.get('port') ?? undefined;
    hosts = items.map((item) => {
      const { host, port } = splitHostPort(decodeURIComponent(item));
      return { host: host || 'localhost', port: portOf(port ?? queryPort, url) };
    });
  }

  for (const name of SELECTION_PARAMS) params.delete(name);
  const rest = params.toString();
  // A Unix socket directory cannot stand in the authority: it stays a ?host= parameter.
  const authorityFor = (h: PostgresHost) => (h.host.startsWith('/') ? userinfo : `${userinfo}${hostText(h)}`);
  const queryFor = (h: PostgresHost) => {
    const single = new URLSearchParams(rest);
    if (h.host.startsWith('/')) {
      single.set('host', h.host);
      single.set('port', String(h.port));
    }
    const text = single.toString();
    return text ? `?${text}` : '';
  };
  const database = path.length > 1 ? decodeURIComponent(path.slice(1)) : '';
  return {
    hosts,
    targetSessionAttrs: attrs as TargetSessionAttrs,
    forHost: (h) => `${scheme}${authorityFor(h)}${path}${queryFor(h)}${fragment}`,
    describe: () => `${hosts.map(hostText).join(',')}${database ? `/${database}` : ''}`,
  };
}
