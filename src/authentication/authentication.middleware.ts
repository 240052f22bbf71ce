import { Inject, Injectable, NestMiddleware, Optional } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { StatusError } from '../apimachinery/errors';
import { ApiRequest } from '../api/request/request-context';
import { SERVER_OPTIONS, ServerOptions } from '../config/options';
import { AuthenticationResult, recordAuthentication } from '../metrics/authentication-metrics';
import { Authenticator } from './authenticator';

/** Second stage of the pipeline: who is calling (401 for a bad credential). */
@Injectable()
export class AuthenticationMiddleware implements NestMiddleware {
  private readonly record: (result: AuthenticationResult, seconds: number) => void;

  constructor(
    private readonly authenticator: Authenticator,
    @Optional() @Inject(SERVER_OPTIONS) options?: ServerOptions,
  ) {
    this.record = options?.requestMetrics === false ? () => undefined : recordAuthentication;
  }

  async use(req: ApiRequest, res: Response, next: NextFunction): Promise<void> {
    const started = performance.now();
    try {
      req.userInfo = await this.authenticator.authenticate(req);
    } catch (err) {
      // kube's results: a refused credential is a failure, anything else the authenticator's error.
      const refused = err instanceof StatusError && err.code === 401;
      this.record(refused ? 'failure' : 'error', (performance.now() - started) / 1000);
      throw err;
    }
    this.record('success', (performance.now() - started) / 1000);
    next();
  }
}
