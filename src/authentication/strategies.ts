import type { Request } from 'express';
import type { TLSSocket } from 'node:tls';
import { Strategy } from 'passport-strategy';
import { UserInfo } from './user-info';

/**
 * Passport strategies, one per authentication method. Each says success (an identity),
 * fail (credentials of its kind were presented and are bad) or pass (none of its kind).
 */
export abstract class AuthenticationStrategy extends Strategy {
  abstract readonly name: string;
}

/** Client certificates verified by the TLS layer against the client CAs: CN = user, O = groups. */
export class X509Strategy extends AuthenticationStrategy {
  readonly name = 'x509';

  authenticate(req: Request): void {
    const socket = req.socket as TLSSocket;
    if (typeof socket.getPeerCertificate !== 'function') return this.pass();
    const cert = socket.getPeerCertificate();
    if (!cert || Object.keys(cert).length === 0) return this.pass();
    if (!socket.authorized) return this.fail(`x509: certificate signed by unknown authority (${socket.authorizationError ?? 'unverified'})`, 401);
    const subject = cert.subject ?? ({} as Record<string, string | string[]>);
    const cn = Array.isArray(subject.CN) ? subject.CN[0] : subject.CN;
    if (!cn) return this.fail('x509: certificate has no common name', 401);
    const o = subject.O;
    const groups = o === undefined ? [] : Array.isArray(o) ? o : [o];
    const user: UserInfo = { username: cn, groups };
    this.success(user);
  }
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

export function bearerToken(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}
