import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { Clock, systemClock } from '../../apimachinery/clock';
import { UserInfo } from '../../apimachinery/user-info';
import { AuthenticationInfo, AuthenticationStrategy, CredentialRequest } from '../strategy/authentication-strategy';
import { CERTIFICATE_EXPIRED, chainsTo } from '../strategy/certificate-chain';

/**
 * What a connection's client certificate says: an identity (until the certificate expires),
 * a refusal, or nothing presented.
 */
type CertificateVerdict = { user: UserInfo; notAfter: number } | { refused: string } | null;

/**
 * Client certificates verified by the TLS layer against the client CAs: CN = user, O = groups.
 * A connection's certificate cannot change, so its verdict is read once per TLS socket
 * (getPeerCertificate parses the certificate into a fresh object on every call).
 */
export const X509_STRATEGY = 'x509';

/** passport's info of this method's successes: the union remembers a certificate's user for its connection. */
export const CERTIFICATE_USER: AuthenticationInfo = Object.freeze({ connection: true });

export class X509Strategy extends AuthenticationStrategy {
  readonly name = X509_STRATEGY;
  private readonly verdicts = new WeakMap<TLSSocket, CertificateVerdict>();

  /**
   * `clientAuthorities`: when the TLS layer also trusts other authorities (an authenticating
   * proxy's), only a certificate chaining to one of these names a user. `clock`: what a
   * certificate's expiry is checked against.
   */
  constructor(
    private readonly clientAuthorities?: X509Certificate[],
    private readonly clock: Clock = systemClock,
  ) {
    super();
  }

  authenticate(req: CredentialRequest): void {
    const socket = req.socket as TLSSocket;
    if (typeof socket.getPeerCertificate !== 'function') return this.pass();
    let verdict = this.verdicts.get(socket);
    if (verdict === undefined) {
      verdict = certificateVerdict(socket, this.clientAuthorities);
      this.verdicts.set(socket, verdict);
    }
    if (verdict === null) return this.pass();
    if ('refused' in verdict) return this.fail(verdict.refused, 401);
    if (this.clock.now() > verdict.notAfter) return this.fail(CERTIFICATE_EXPIRED, 401);
    this.success({ ...verdict.user, groups: [...verdict.user.groups] }, CERTIFICATE_USER);
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

