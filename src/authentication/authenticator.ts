import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Passport } from 'passport';
import { errors } from '../apimachinery/errors';
import { AuthenticationStrategy, TokenFileStrategy, X509_STRATEGY, X509Strategy } from './strategies';
import { anonymousUser, UserInfo, withAuthenticatedGroup } from '../apimachinery/user-info';

/** How callers authenticate, as the configuration loaded at start settles it. */
export interface AuthenticationSettings {
  /** Requests without credentials run as system:anonymous (--anonymous-auth, off with AlwaysAllow). */
  anonymous: boolean;
  /** --token-auth-file, read: each token and the identity it stands for. */
  staticTokens?: Map<string, UserInfo>;
}

export const AUTHENTICATION_SETTINGS = Symbol('AUTHENTICATION_SETTINGS');

type Outcome = { kind: 'success'; user: UserInfo } | { kind: 'fail'; message: string } | { kind: 'pass' };

/**
 * The union of the configured authentication methods, as kube's union authenticator:
 * the first method that accepts the request decides; if credentials were presented and
 * none accepted them the request is 401; with none at all it is anonymous (when allowed).
 */
@Injectable()
export class Authenticator {
  private readonly passport = new Passport();
  private readonly names: string[] = [];
  /**
   * Users proved by a connection's client certificate. x509 is asked first and a
   * certificate cannot change, so later requests on that connection skip the strategies.
   */
  private readonly connectionUsers = new WeakMap<object, { user: UserInfo; until: number }>();
  private readonly x509 = new X509Strategy();

  constructor(@Inject(AUTHENTICATION_SETTINGS) private readonly settings: AuthenticationSettings) {
    this.use(this.x509);
    if (settings.staticTokens) this.use(new TokenFileStrategy(settings.staticTokens));
  }

  private use(strategy: AuthenticationStrategy): void {
    this.passport.use(strategy.name, strategy);
    this.names.push(strategy.name);
  }

  async authenticate(req: Request, res: Response): Promise<UserInfo> {
    const known = this.connectionUsers.get(req.socket);
    if (known && Date.now() <= known.until) return this.authenticated(req, { ...known.user, groups: [...known.user.groups] });
    let failure: string | undefined;
    for (const name of this.names) {
      const outcome = await this.run(name, req, res);
      if (outcome.kind === 'success') {
        if (name === this.names[0] && name === X509_STRATEGY) {
          this.connectionUsers.set(req.socket, { user: { ...outcome.user, groups: [...outcome.user.groups] }, until: this.x509.validUntil(req.socket) });
        }
        return this.authenticated(req, outcome.user);
      }
      if (outcome.kind === 'fail') failure ??= outcome.message;
    }
    if (failure !== undefined) throw errors.unauthorized();
    if (!this.settings.anonymous) throw errors.unauthorized();
    return anonymousUser();
  }

  private authenticated(req: Request, user: UserInfo): UserInfo {
    // kube drops the credential once it has been used, so handlers never see it.
    delete req.headers.authorization;
    return withAuthenticatedGroup(user);
  }

  private run(name: string, req: Request, res: Response): Promise<Outcome> {
    return new Promise((resolve, reject) => {
      const handler = this.passport.authenticate(name, { session: false }, (err: unknown, user: UserInfo | false, info: unknown) => {
        if (err) return reject(err);
        if (user) return resolve({ kind: 'success', user });
        resolve({ kind: 'fail', message: typeof info === 'string' ? info : 'rejected' });
      }) as (req: Request, res: Response, next: () => void) => void;
      handler(req, res, () => resolve({ kind: 'pass' }));
    });
  }
}
