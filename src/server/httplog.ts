import type { NextFunction, Request, Response } from 'express';
import { assignAuditId } from '../endpoints/request/audit-id';
import type { ApiRequest } from '../endpoints/request/request-context';
import { goDurationText, KubeLogger } from './logging';

/** kube's httplog writes its request lines at this verbosity and above (issue 15). */
export const HTTPLOG_VERBOSITY = 2;

/** kube's verb in the line: the method, LIST and WATCH for collection reads, APPLY for server-side apply. */
function verbOf(req: ApiRequest): string {
  const verb = req.requestInfo?.verb;
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
 * First on every request: gives it its audit ID (the `Audit-ID` response header) and, at
 * `-v=2` and above, logs one line when it ends, as kube's httplog: verb, URI, latency, user
 * agent, audit ID, source, user and status. Headers and bodies are never logged, so no
 * credential is.
 */
export function httpLog(logger: KubeLogger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const auditId = assignAuditId(req, res);
    if (logger.enabled(HTTPLOG_VERBOSITY)) {
      const started = process.hrtime.bigint();
      let logged = false;
      // 'finish' when the answer was handed over, 'close' when the connection went first.
      const log = () => {
        if (logged) return;
        logged = true;
        const api = req as ApiRequest;
        logger.info(HTTPLOG_VERBOSITY, 'httplog', 'HTTP', {
          verb: verbOf(api),
          URI: req.originalUrl,
          latency: goDurationText(Number(process.hrtime.bigint() - started) / 1e6),
          userAgent: req.headers['user-agent'],
          'audit-ID': auditId,
          srcIP: sourceOf(req),
          user: api.userInfo?.username,
          resp: res.headersSent ? res.statusCode : 0,
        });
      };
      res.once('finish', log);
      res.once('close', log);
    }
    next();
  };
}
