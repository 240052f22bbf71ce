import type { NextFunction, Request, Response } from 'express';
import type { IncomingRequest, RequestScope } from '../endpoints/request/request-scope';
import { goDurationText, KubeLogger } from './logging';

/** kube's httplog writes its request lines at this verbosity and above (issue 15). */
export const HTTPLOG_VERBOSITY = 2;

/** kube's verb in the line: the method, LIST and WATCH for collection reads, APPLY for server-side apply. */
function verbOf(req: IncomingRequest): string {
  const verb = req.scope.info.verb;
  if (verb === 'list') return 'LIST';
  if (verb === 'watch') return 'WATCH';
  if (req.method === 'PATCH' && String(req.headers['content-type'] ?? '').startsWith('application/apply-patch')) return 'APPLY';
  return req.method;
}

function sourceOf(req: Request): string {
  const address = req.socket.remoteAddress ?? '';
  return `${address.includes(':') ? `[${address}]` : address}:${req.socket.remotePort ?? ''}`;
}

/**
 * Right after the request's scope is made: at `-v=2` and above, one line when the request
 * ends, as kube's httplog: verb, URI, latency, user agent, audit ID, source, user and status.
 * Headers and bodies are never logged, so no credential is.
 */
export function httpLog(logger: KubeLogger) {
  return (req: IncomingRequest, res: Response, next: NextFunction): void => {
    if (logger.enabled(HTTPLOG_VERBOSITY)) {
      const started = process.hrtime.bigint();
      let logged = false;
      // 'finish' when the answer was handed over, 'close' when the connection went first.
      const log = () => {
        if (logged) return;
        logged = true;
        const scope = req.scope as Partial<RequestScope>;
        logger.info(HTTPLOG_VERBOSITY, 'httplog', 'HTTP', {
          verb: verbOf(req),
          URI: req.originalUrl,
          latency: goDurationText(Number(process.hrtime.bigint() - started) / 1e6),
          userAgent: req.headers['user-agent'],
          'audit-ID': req.scope.auditId,
          srcIP: sourceOf(req),
          // A request refused by authentication has no user.
          user: scope.user?.username,
          resp: res.headersSent ? res.statusCode : 0,
        });
      };
      res.once('finish', log);
      res.once('close', log);
    }
    next();
  };
}
