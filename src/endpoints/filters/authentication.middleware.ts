import { Inject, Injectable, NestMiddleware, Optional } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { StatusError } from '../../apimachinery/errors';
import { advanceScope, IncomingRequest, RequestScope } from '../request/request-scope';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { AuthenticationResult, recordAuthentication } from '../../metrics/authentication-metrics';
import { Authenticator } from '../../authentication/authenticator';
import { UserInfo } from '../../apimachinery/user-info';

/** The authentication stage: who is calling (401 for a bad credential); the scope then has its user. */
@Injectable()
export class AuthenticationMiddleware implements NestMiddleware {
  private readonly record: (result: AuthenticationResult, seconds: number) => void;

  constructor(
    private readonly authenticator: Authenticator,
    @Optional() @Inject(SERVER_OPTIONS) options?: ServerOptions,
  ) {
    this.record = options?.requestMetrics === false ? () => undefined : recordAuthentication;
  }

  use(req: IncomingRequest, _res: Response, next: NextFunction): void | Promise<void> {
    const started = performance.now();
    let user: UserInfo | Promise<UserInfo>;
    try {
      user = this.authenticator.authenticate(req);
    } catch (err) {
      throw this.failed(err, started);
    }
    // A connection's known user comes back at once: the stage then ends without a promise.
    if (!(user instanceof Promise)) return this.succeeded(req, user, started, next);
    return user.then(
      (u) => this.succeeded(req, u, started, next),
      (err) => {
        throw this.failed(err, started);
      },
    );
  }

  private succeeded(req: IncomingRequest, user: UserInfo, started: number, next: NextFunction): void {
    advanceScope<RequestScope>(req, { user, authenticatedUser: user, audit: undefined });
    this.record('success', (performance.now() - started) / 1000);
    next();
  }

  /** kube's results: a refused credential is a failure, anything else the authenticator's error. */
  private failed(err: unknown, started: number): unknown {
    const refused = err instanceof StatusError && err.code === 401;
    this.record(refused ? 'failure' : 'error', (performance.now() - started) / 1000);
    return err;
  }
}
