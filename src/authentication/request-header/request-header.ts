import type { Request } from 'express';
import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { Clock, systemClock } from '../../apimachinery/clock';
import { setOwn } from '../../apimachinery/types';
import { UserInfo } from '../../apimachinery/user-info';
import { certificatesOf, chainsTo } from '../strategy/certificate-chain';
import { AuthenticationStrategy, CredentialRequest } from '../strategy/authentication-strategy';
import { CERTIFICATE_EXPIRED } from '../strategy/certificate-chain';

/** The `--requestheader-*` flags, the CA file read. */
export interface RequestHeaderSettings {
  /** --requestheader-client-ca-file: the authorities of the proxies' client certificates (PEM). */
  clientCaPem: string;
  /** --requestheader-allowed-names: proxy certificate common names accepted; empty: any. */
  allowedNames: string[];
  usernameHeaders: string[];
  uidHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

/**
 * The headers an aggregated server reads, stripped from every authenticated request whatever the
 * configured names (kube's filter does the same), so they never reach a handler as identity.
 */
export const STANDARD_REQUEST_HEADERS: Pick<RequestHeaderSettings, 'usernameHeaders' | 'uidHeaders' | 'groupHeaders' | 'extraHeaderPrefixes'> = {
  usernameHeaders: ['X-Remote-User'],
  uidHeaders: ['X-Remote-Uid'],
  groupHeaders: ['X-Remote-Group'],
  extraHeaderPrefixes: ['X-Remote-Extra-'],
};

export const REQUEST_HEADER_STRATEGY = 'requestheader';

/** Whether a connection's certificate is a trusted proxy's: decided once per TLS socket. */
type ProxyVerdict = { trusted: true; notAfter: number } | { trusted: false; reason: string } | null;

type HeaderValues = Record<string, string[] | undefined>;

/** The first non-empty value of the first header that has one (kube's headerValue). */
function firstValue(headers: HeaderValues, names: string[]): string | undefined {
  for (const name of names) {
    const value = headers[name.toLowerCase()]?.[0];
    if (value) return value;
  }
  return undefined;
}

/** kube's extra keys are lowercased, then percent-decoded (so escaped upper case survives); undecodable keys stay as sent. */
function extraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded.toLowerCase());
  } catch {
    return encoded.toLowerCase();
  }
}

/** The identity the headers carry (null without a username), as kube's request-header authenticator reads it. */
export function userFromHeaders(headers: HeaderValues, names: Omit<RequestHeaderSettings, 'clientCaPem' | 'allowedNames'>): UserInfo | null {
  const username = firstValue(headers, names.usernameHeaders);
  if (!username) return null;
  const user: UserInfo = { username, groups: [] };
  const uid = firstValue(headers, names.uidHeaders);
  if (uid) user.uid = uid;
  for (const name of names.groupHeaders) user.groups.push(...(headers[name.toLowerCase()] ?? []).filter(Boolean));
  const extra: Record<string, string[]> = {};
  const prefixes = names.extraHeaderPrefixes.map((p) => p.toLowerCase());
  for (const [header, values] of Object.entries(headers)) {
    for (const prefix of prefixes) {
      if (!header.startsWith(prefix) || !values) continue;
      const key = extraKey(header.slice(prefix.length));
      setOwn(extra, key, [...(Object.hasOwn(extra, key) ? extra[key] : []), ...values]);
    }
  }
  if (Object.keys(extra).length) user.extra = extra;
  return user;
}

/** Removes the identity headers `names` describe (Node keeps header names lowercased). */
export function removeIdentityHeaders(headers: Record<string, unknown>, names: Omit<RequestHeaderSettings, 'clientCaPem' | 'allowedNames'>): void {
  let lowercased = lowercasedNames.get(names);
  if (!lowercased) {
    lowercased = {
      exact: [...names.usernameHeaders, ...names.uidHeaders, ...names.groupHeaders].map((name) => name.toLowerCase()),
      prefixes: names.extraHeaderPrefixes.map((p) => p.toLowerCase()),
    };
    lowercasedNames.set(names, lowercased);
  }
  for (const name of lowercased.exact) delete headers[name];
  for (const header in headers) {
    for (const prefix of lowercased.prefixes) {
      if (header.startsWith(prefix)) {
        delete headers[header];
        break;
      }
    }
  }
}

/** Header names as Node keys them, per settings object (every request removes them). */
const lowercasedNames = new WeakMap<object, { exact: string[]; prefixes: string[] }>();

/**
 * The authenticating proxy (kube's request-header authenticator): on a connection whose
 * client certificate chains to --requestheader-client-ca-file and, with
 * --requestheader-allowed-names, names an allowed common name, the identity is read from
 * the configured headers. Any other certificate makes the headers count for nothing.
 */
export class RequestHeaderStrategy extends AuthenticationStrategy {
  readonly name = REQUEST_HEADER_STRATEGY;
  private readonly authorities: X509Certificate[];
  private readonly verdicts = new WeakMap<TLSSocket, ProxyVerdict>();

  constructor(
    private readonly settings: RequestHeaderSettings,
    private readonly clock: Clock = systemClock,
  ) {
    super();
    this.authorities = certificatesOf(settings.clientCaPem);
  }

  authenticate(req: CredentialRequest): void {
    const verdict = this.verdict(req.socket as TLSSocket);
    if (verdict === null) return this.pass();
    if (!verdict.trusted) return this.fail(verdict.reason, 401);
    if (this.clock.now() > verdict.notAfter) return this.fail(CERTIFICATE_EXPIRED, 401);
    const user = userFromHeaders(req.headersDistinct, this.settings);
    if (!user) return this.pass();
    this.success(user);
  }

  /** Whether requests on this connection may carry identity headers (so its x509 user cannot be remembered for it). */
  trusts(socket: object): boolean {
    return this.verdict(socket as TLSSocket)?.trusted === true;
  }

  /** Strips the configured identity headers (also from the per-name copy this strategy read). */
  removeHeaders(req: Request): void {
    removeIdentityHeaders(req.headers, this.settings);
    if (req.headersDistinct) removeIdentityHeaders(req.headersDistinct, this.settings);
  }

  private verdict(socket: TLSSocket): ProxyVerdict {
    if (typeof socket.getPeerCertificate !== 'function') return null;
    let verdict = this.verdicts.get(socket);
    if (verdict === undefined) {
      verdict = this.judge(socket);
      this.verdicts.set(socket, verdict);
    }
    return verdict;
  }

  private judge(socket: TLSSocket): ProxyVerdict {
    const cert = socket.getPeerCertificate();
    if (!cert || Object.keys(cert).length === 0) return null;
    if (!socket.authorized || !chainsTo(socket, this.authorities)) return { trusted: false, reason: 'x509: certificate signed by unknown authority' };
    const cn = Array.isArray(cert.subject?.CN) ? cert.subject.CN[0] : cert.subject?.CN;
    const allowed = this.settings.allowedNames;
    if (allowed.length && !allowed.includes(cn ?? '')) return { trusted: false, reason: `x509: subject with cn=${cn ?? ''} is not in the allowed list` };
    const notAfter = Date.parse(cert.valid_to);
    return { trusted: true, notAfter: Number.isNaN(notAfter) ? 0 : notAfter };
  }
}
