import type { Request } from 'express';
import type { CredentialRequest } from './authentication-strategy';

/**
 * Where a request's bearer token is read, exactly as kube's authenticators read it, so every
 * token method (token file, service accounts, bootstrap tokens, JWT issuers, the token
 * webhook) sees the same token or none.
 *
 * The `Authorization` header (kube's request/bearertoken): the value trimmed of white space,
 * split on single spaces; a first part other than `bearer` (any case) is no bearer token at all
 * (Basic credentials, a lone `Bearer`), nor is an empty second part (`Bearer  abc`, with two
 * spaces); anything after the second part is ignored (`Bearer abc def` presents `abc`).
 *
 * A WebSocket handshake's `Sec-WebSocket-Protocol` (kube's request/websocket): browsers cannot
 * set headers on one, so a subprotocol `base64url.bearer.authorization.k8s.io.<token in
 * unpadded base64url>` carries the token (and the `platform.io` spelling, as with the other
 * names kubectl hard-codes).
 */

/** The bytes Go's unicode.IsSpace accepts, as Node hands header bytes over (one char per byte). */
const ASCII_SPACE = new Set(['\t', '\n', '\v', '\f', '\r', ' ']);
/** The other white space Go trims, as its UTF-8 bytes would appear in a header string. */
const UTF8_SPACES = [0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000].map(
  (code) => Buffer.from(String.fromCodePoint(code), 'utf8').toString('latin1'),
);

/** Go's strings.TrimSpace over a header value as Node gives it (each char one byte of the raw value). */
export function trimGoSpace(value: string): string {
  let start = 0;
  let end = value.length;
  for (;;) {
    if (start < end && ASCII_SPACE.has(value[start])) start++;
    else {
      const space = UTF8_SPACES.find((s) => value.startsWith(s, start) && start + s.length <= end);
      if (!space) break;
      start += space.length;
    }
  }
  for (;;) {
    if (end > start && ASCII_SPACE.has(value[end - 1])) end--;
    else {
      const space = UTF8_SPACES.find((s) => end - s.length >= start && value.endsWith(s, end));
      if (!space) break;
      end -= space.length;
    }
  }
  return value.slice(start, end);
}

/** The token of an `Authorization` header value, or undefined when it presents none (kube's bearertoken authenticator). */
export function tokenOfAuthorizationHeader(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const auth = trimGoSpace(header);
  if (auth === '') return undefined;
  const parts = auth.split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer') return undefined;
  // Empty bearer tokens are not tokens (kube: no credential, not an invalid one).
  return parts[1] === '' ? undefined : parts[1];
}

/** The subprotocol prefixes that carry a token: kube's, and our domain's spelling of it. */
const BEARER_PROTOCOL_PREFIXES = ['base64url.bearer.authorization.k8s.io.', 'base64url.bearer.authorization.platform.io.'];

/** kube's wsstream.IsWebSocketRequest: `Upgrade: websocket` and a Connection header naming `upgrade`. */
const CONNECTION_UPGRADE = /(^|.*,[\t\n\f\r ]*)upgrade($|[\t\n\f\r ]*,)/;

export function isWebSocketRequest(headers: Request['headers']): boolean {
  const upgrade = headers.upgrade;
  const connection = headers.connection;
  return typeof upgrade === 'string' && upgrade.toLowerCase() === 'websocket' && typeof connection === 'string' && CONNECTION_UPGRADE.test(connection.toLowerCase());
}

/** What a WebSocket handshake's subprotocols present: a token (and the other subprotocols), nothing, or a malformed token. */
export type ProtocolToken = { token: string; otherProtocols: string[] } | { invalid: string } | undefined;

/** Go's base64.RawURLEncoding.DecodeString: the URL alphabet without padding (line breaks skipped). */
function decodeRawBase64Url(encoded: string): Buffer | undefined {
  const text = encoded.replace(/[\r\n]/g, '');
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  return Buffer.from(text, 'base64url');
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The token of a WebSocket handshake's subprotocols (kube's websocket ProtocolAuthenticator). */
export function tokenOfWebSocketProtocols(headers: Request['headers']): ProtocolToken {
  if (!isWebSocketRequest(headers)) return undefined;
  const header: string | string[] | undefined = headers['sec-websocket-protocol'];
  const values: string[] = header === undefined ? [] : Array.isArray(header) ? header : [header];
  let token = '';
  let sawToken = false;
  const otherProtocols: string[] = [];
  for (const value of values) {
    for (const part of value.split(',')) {
      const protocol = trimGoSpace(part);
      const prefix = BEARER_PROTOCOL_PREFIXES.find((p) => protocol.startsWith(p));
      if (!prefix) {
        otherProtocols.push(protocol);
        continue;
      }
      if (sawToken) return { invalid: 'multiple base64.bearer.authorization tokens specified' };
      sawToken = true;
      const decoded = decodeRawBase64Url(protocol.slice(prefix.length));
      if (!decoded) return { invalid: 'invalid base64.bearer.authorization token encoding' };
      try {
        token = utf8.decode(decoded);
      } catch {
        return { invalid: 'invalid base64.bearer.authorization token' };
      }
    }
  }
  // Another subprotocol must remain, for the server to echo once the token's is removed.
  if (token !== '' && otherProtocols.length === 0) return { invalid: 'missing additional subprotocol' };
  return token === '' ? undefined : { token, otherProtocols };
}

/**
 * The bearer token a request presents, or undefined: a reviewed token as it is, else the
 * Authorization header's, else a WebSocket handshake's subprotocol's. (kube asks its
 * WebSocket authenticator only when no token method accepted the header's token; a request
 * presents both only if its client means neither to count.)
 */
export function bearerToken(req: CredentialRequest): string | undefined {
  const presented = req.presentedToken;
  if (presented !== undefined) return presented;
  const fromHeader = tokenOfAuthorizationHeader(req.headers.authorization);
  if (fromHeader !== undefined) return fromHeader;
  const fromProtocols = tokenOfWebSocketProtocols(req.headers);
  return fromProtocols && 'token' in fromProtocols ? fromProtocols.token : undefined;
}

/** Why a request's token is refused before any method sees it (a malformed WebSocket token subprotocol), if it is. */
export function malformedBearerToken(req: CredentialRequest): string | undefined {
  if (req.presentedToken !== undefined || tokenOfAuthorizationHeader(req.headers.authorization) !== undefined) return undefined;
  const fromProtocols = tokenOfWebSocketProtocols(req.headers);
  return fromProtocols && 'invalid' in fromProtocols ? fromProtocols.invalid : undefined;
}

/** Removes the credential a request authenticated with, as kube does once it has been used. */
export function removeBearerToken(req: Request): void {
  delete req.headers.authorization;
  const fromProtocols = tokenOfWebSocketProtocols(req.headers);
  if (fromProtocols && 'token' in fromProtocols) req.headers['sec-websocket-protocol'] = fromProtocols.otherProtocols.join(',');
}
