import type { Request } from 'express';
import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { Strategy } from 'passport-strategy';
import { UserInfo } from '../apimachinery/user-info';
import { bearerToken } from './bearer-token';
import { chainsTo } from './certificate-chain';

/**
 * Passport strategies, one per authentication method. Each says success (an identity),
 * fail (credentials of its kind were presented and are bad) or pass (none of its kind).
 */
export abstract class AuthenticationStrategy extends Strategy {
  abstract readonly name: string;
}

/**
 * What a connection's client certificate says: an identity (until the certificate expires),
 * a refusal, or nothing presented.
 */
type CertificateVerdict = { user: UserInfo; notAfter: number } | { refused: string } | null;

/** kube's x509 authenticator checks validity at every request, so a kept-alive connection outlives no certificate. */
export const CERTIFICATE_EXPIRED = 'x509: certificate has expired or is not yet valid';

/**
 * Client certificates verified by the TLS layer against the client CAs: CN = user, O = groups.
 * A connection's certificate cannot change, so its verdict is read once per TLS socket
 * (getPeerCertificate parses the certificate into a fresh object on every call).
 */
export const X509_STRATEGY = 'x509';

export class X509Strategy extends AuthenticationStrategy {
  readonly name = X509_STRATEGY;
  private readonly verdicts = new WeakMap<TLSSocket, CertificateVerdict>();

  /**
   * `clientAuthorities`: when the TLS layer also trusts other authorities (an authenticating
   * proxy's), only a certificate chaining to one of these names a user.
   */
  constructor(private readonly clientAuthorities?: X509Certificate[]) {
    super();
  }

  authenticate(req: Request): void {
    const socket = req.socket as TLSSocket;
    if (typeof socket.getPeerCertificate !== 'function') return this.pass();
    let verdict = this.verdicts.get(socket);
    if (verdict === undefined) {
      verdict = certificateVerdict(socket, this.clientAuthorities);
      this.verdicts.set(socket, verdict);
    }
    if (verdict === null) return this.pass();
    if ('refused' in verdict) return this.fail(verdict.refused, 401);
    if (Date.now() > verdict.notAfter) return this.fail(CERTIFICATE_EXPIRED, 401);
    this.success({ ...verdict.user, groups: [...verdict.user.groups] });
  }

  /** Until when a connection's certificate vouches for its user (for callers that remember the user). */
  validUntil(socket: object): number {
    const verdict = this.verdicts.get(socket as TLSSocket);
    return verdict && 'user' in verdict ? verdict.notAfter : 0;
  }
}

function certificateVerdict(socket: TLSSocket, clientAuthorities: X509Certificate[] | undefined): CertificateVerdict {
  const cert = socket.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) return null;
  if (!socket.authorized) return { refused: `x509: certificate signed by unknown authority (${socket.authorizationError ?? 'unverified'})` };
  if (clientAuthorities && !chainsTo(socket, clientAuthorities)) return { refused: 'x509: certificate signed by unknown authority' };
  const subject = cert.subject ?? ({} as Record<string, string | string[]>);
  const cn = Array.isArray(subject.CN) ? subject.CN[0] : subject.CN;
  if (!cn) return { refused: 'x509: certificate has no common name' };
  const o = subject.O;
  const notAfter = Date.parse(cert.valid_to);
  return { user: { username: cn, groups: o === undefined ? [] : Array.isArray(o) ? o : [o] }, notAfter: Number.isNaN(notAfter) ? 0 : notAfter };
}

/** `Authorization: Bearer <token>` looked up in the --token-auth-file table. */
export class TokenFileStrategy extends AuthenticationStrategy {
  readonly name = 'token-file';

  constructor(private readonly tokens: Map<string, UserInfo>) {
    super();
  }

  authenticate(req: Request): void {
    const token = bearerToken(req);
    if (token === undefined) return this.pass();
    const user = this.tokens.get(token);
    if (!user) return this.fail('invalid bearer token', 401);
    this.success({ ...user, groups: [...user.groups] });
  }
}

/**
 * The audiences a request is authenticated for, when they are not the API's own: a
 * TokenReview's `spec.audiences` (kube's authenticator.WithAudiences).
 */
export const AUDIENCES = Symbol('authentication audiences');
/** Set by a strategy that checked audiences: those of the requested ones the credential is valid for. */
export const AUTHENTICATED_AUDIENCES = Symbol('authenticated audiences');

export function requestedAudiences(req: Request): string[] | undefined {
  return (req as unknown as Record<symbol, string[] | undefined>)[AUDIENCES];
}

export function setAuthenticatedAudiences(req: Request, audiences: string[]): void {
  (req as unknown as Record<symbol, string[]>)[AUTHENTICATED_AUDIENCES] = audiences;
}

/** Set by a strategy whose credential expires (a JWT's exp), in ms: a cached success ends then. */
export const CREDENTIAL_NOT_AFTER = Symbol('credential not after');

export function setCredentialNotAfter(req: Request, ms: number): void {
  (req as unknown as Record<symbol, number>)[CREDENTIAL_NOT_AFTER] = ms;
}

/** Every token method reads the request's token through this one extractor (kube's parsing). */
export { bearerToken } from './bearer-token';
