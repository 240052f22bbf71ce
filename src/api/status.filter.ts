import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { errors, StatusError } from './errors';

/** Turns every error into a Kubernetes Status response; unknown errors become a logged 500. */
@Catch()
export class StatusExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Status');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const err = this.toStatusError(exception);
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
    res.status(err.code).setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(err.toStatus()) + '\n');
  }

  private toStatusError(exception: unknown): StatusError {
    if (exception instanceof StatusError) return exception;
    if (exception instanceof HttpException) {
      const code = exception.getStatus();
      if (code === 404) return errors.pathNotFound();
      if (code === 405) return errors.methodNotAllowed();
      if (code === 401) return errors.unauthorized();
      if (code === 403) return errors.forbidden('', exception.message);
      if (code < 500) return new StatusError(code, 'BadRequest', exception.message);
    }
    this.logger.error(exception instanceof Error ? exception.stack ?? exception.message : String(exception));
    return errors.internal(exception instanceof Error ? exception.message : String(exception));
  }
}
