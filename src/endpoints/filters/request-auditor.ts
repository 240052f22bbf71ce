import { Inject, Injectable, Logger, NestMiddleware, OnApplicationShutdown, Optional } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { AuditRecord, openAuditRecord } from '../../audit/audit-context';
import { advanceScope, ApiRequest, IncomingRequest, RequestScope } from '../request/request-scope';
import { errors } from '../../apimachinery/errors';
import type { UserInfo } from '../../apimachinery/user-info';
import { DEFAULT_RETRY_BACKOFF, WebhookTransport } from '../../webhook-client/webhook-transport';
import { recordAuditEvent, recordAuditLevel, recordAuditRejectedRequest } from '../../metrics/audit-metrics';
import { AUDIT_SETTINGS, AuditSettings } from '../../audit/audit-settings';
import { AuditBackend, BufferedBackend, LogBackend, stdoutWriter, UnionBackend, WebhookBackend } from '../../audit/backends';
import { AuditEvent, auditUser, microTimestamp, sourceIPs, userAgentOf, withoutManagedFields } from '../../audit/event';
import { AuditStage, AUDIT_API_VERSION } from '../../audit/policy';
import { AuditAttributes, AuditPolicyChecker, RequestAuditConfig } from '../../audit/policy-checker';
import { RotatingFile } from '../../audit/rotating-file';
import { TruncateConfig, TruncatingBackend } from '../../audit/truncate';

/** How long one webhook batch may take to deliver, retries included. */
const WEBHOOK_BATCH_DEADLINE_MS = 60_000;

/** A backend whose failures do not fail requests (every mode but blocking-strict). */
class IgnoreErrors implements AuditBackend {
  constructor(private readonly backend: AuditBackend) {}
  processEvents(events: AuditEvent[]): boolean | Promise<boolean> {
    const result = this.backend.processEvents(events);
    return typeof result === 'boolean' ? true : result.then(() => true);
  }
  shutdown(): Promise<void> {
    return this.backend.shutdown();
  }
}

/** The backends the settings ask for, each wrapped for its mode. */
function backendsFor(settings: AuditSettings): AuditBackend[] {
  const backends: AuditBackend[] = [];
  // Truncating sits right around the log or webhook backend, so it splits the buffer's batches too.
  const moded = (backend: AuditBackend, mode: string, batch: ConstructorParameters<typeof BufferedBackend>[1], truncate?: TruncateConfig) => {
    const sized = truncate ? new TruncatingBackend(backend, truncate) : backend;
    const buffered = mode === 'batch' ? new BufferedBackend(sized, batch) : sized;
    return mode === 'blocking-strict' ? buffered : new IgnoreErrors(buffered);
  };
  if (settings.log) {
    const { path, format, mode, batch, rotation, truncate } = settings.log;
    backends.push(moded(new LogBackend(path === '-' ? stdoutWriter : new RotatingFile(path, rotation), format), mode, batch, truncate));
  }
  if (settings.webhook) {
    const { connection, mode, batch, initialBackoffMs, truncate } = settings.webhook;
    const transport = new WebhookTransport(connection, { ...DEFAULT_RETRY_BACKOFF, initialDelayMs: initialBackoffMs });
    backends.push(moded(new WebhookBackend(transport, WEBHOOK_BATCH_DEADLINE_MS), mode, batch, truncate));
  }
  return backends;
}

/** An audited request's event as it grows, and what it still has to emit. */
interface RequestAudit {
  config: RequestAuditConfig;
  event: AuditEvent;
  record: AuditRecord;
  completed: boolean;
}

/** The auditor's own bookkeeping of a request it follows: when it arrived, and its event once the policy gave it one. */
interface AuditProgress {
  receivedTimestamp: string;
  audit: RequestAudit | undefined;
}

/** kube's getAuthMethods: what a request that failed authentication tried. */
function attemptedAuthentication(req: IncomingRequest): string {
  const methods: string[] = [];
  const authorization = (req.headers.authorization ?? '').trim();
  if (/^basic\s/i.test(authorization)) methods.push('basic');
  const parts = authorization.split(' ');
  if (parts.length > 1 && parts[0].toLowerCase() === 'bearer') methods.push('bearer');
  if (typeof req.query?.access_token === 'string' && req.query.access_token.trim()) methods.push('access_token');
  const socket = req.socket as { getPeerCertificate?: () => { raw?: Buffer } };
  if (socket.getPeerCertificate?.()?.raw) methods.push('x509');
  return methods.length ? `Authentication failed, attempted: ${methods.join(', ')}` : 'Authentication failed, no credentials provided';
}

/**
 * The audit trail (kube's WithAuditInit, WithAudit, WithFailedAuthenticationAudit): every
 * request gets an audit ID, echoed in the `Audit-ID` header; with a policy and a backend, the
 * policy gives each request a level after authentication, and its events (RequestReceived,
 * ResponseStarted for watches, ResponseComplete or Panic) go to the backends, less the
 * stages the matching rule omits. `flush()` writes or sends what is still buffered.
 */
@Injectable()
export class RequestAuditor implements OnApplicationShutdown {
  private readonly logger = new Logger('Audit');
  private readonly checker?: AuditPolicyChecker;
  private readonly backend?: AuditBackend;
  private closed?: Promise<void>;
  /** What the auditor follows of each request in flight (its own state, not the request's). */
  private readonly progress = new WeakMap<IncomingRequest, AuditProgress>();

  constructor(@Optional() @Inject(AUDIT_SETTINGS) settings: AuditSettings | null) {
    if (!settings) return;
    this.checker = new AuditPolicyChecker(settings.policy);
    const backends = backendsFor(settings);
    this.backend = backends.length === 1 ? backends[0] : new UnionBackend(backends);
  }

  get enabled(): boolean {
    return this.backend !== undefined;
  }

  /** kube's WithAuditInit (the audit ID is the scope's): when auditing, the clock and the end-of-request hook. */
  readonly init: NestMiddleware = {
    use: (req: IncomingRequest, res: Response, next: NextFunction) => {
      if (this.backend) {
        this.progress.set(req, { receivedTimestamp: microTimestamp(), audit: undefined });
        const finish = () => void this.finish(req, res);
        res.once('finish', finish);
        res.once('close', finish);
      }
      next();
    },
  };

  /** The stage after authentication: the policy's level for this caller, and the RequestReceived event. */
  readonly received: NestMiddleware = {
    use: async (req: ApiRequest, res: Response, next: NextFunction) => {
      if (!this.backend) return next();
      const audit = this.open(req, req.scope.user);
      if (!audit) return next();
      advanceScope<RequestScope>(req, { audit: audit.record });
      if (req.scope.info.verb === 'watch') this.onResponseStarted(req, res, audit);
      if (!(await this.emit(audit, 'RequestReceived'))) {
        recordAuditRejectedRequest();
        return next(errors.internal('failed to store audit event'));
      }
      next();
    },
  };

  /**
   * Writes or sends everything buffered and closes the backends (once; later events are
   * counted as errors). Nest calls it on application shutdown, after the listener closed.
   */
  flush(): Promise<void> {
    this.closed ??= (this.backend?.shutdown() ?? Promise.resolve()).catch((err) => this.logger.error(`flushing audit events: ${(err as Error).message}`));
    return this.closed;
  }

  onApplicationShutdown(): Promise<void> {
    return this.flush();
  }

  /** Evaluates the policy and opens the request's event; undefined at level None. */
  private open(req: IncomingRequest, user: UserInfo | undefined): RequestAudit | undefined {
    const { info, auditId } = req.scope;
    const progress = this.progress.get(req);
    const attrs: AuditAttributes = {
      user,
      verb: info.verb,
      isResourceRequest: info.isResourceRequest,
      path: info.path,
      namespace: info.namespace,
      apiGroup: info.apiGroup,
      resource: info.resource,
      subresource: info.subresource,
      name: info.name,
    };
    const config = this.checker!.evaluate(attrs);
    recordAuditLevel(config.level);
    if (config.level === 'None') return undefined;
    const event: AuditEvent = {
      kind: 'Event',
      apiVersion: AUDIT_API_VERSION,
      level: config.level,
      auditID: auditId,
      stage: 'RequestReceived',
      requestURI: req.originalUrl ?? req.url,
      verb: attrs.verb,
      user: auditUser(user),
      sourceIPs: sourceIPs(req),
      userAgent: userAgentOf(req),
      requestReceivedTimestamp: progress?.receivedTimestamp ?? microTimestamp(),
      stageTimestamp: '',
    };
    if (attrs.isResourceRequest) {
      event.objectRef = {
        resource: attrs.resource || undefined,
        namespace: attrs.namespace || undefined,
        name: attrs.name || undefined,
        apiGroup: attrs.apiGroup || undefined,
        apiVersion: info.apiVersion || undefined,
        subresource: attrs.subresource || undefined,
      };
    }
    const audit: RequestAudit = { config, event, record: openAuditRecord(config.level), completed: false };
    if (progress) progress.audit = audit;
    return audit;
  }

  /** Long-running requests (watches) have a ResponseStarted event when their headers go out. */
  private onResponseStarted(req: IncomingRequest, res: Response, audit: RequestAudit): void {
    const writeHead = res.writeHead;
    let started = false;
    res.writeHead = ((...args: Parameters<typeof writeHead>) => {
      if (!started) {
        started = true;
        this.update(req, audit, typeof args[0] === 'number' ? args[0] : res.statusCode);
        void this.emit(audit, 'ResponseStarted');
      }
      return writeHead.apply(res, args);
    }) as typeof writeHead;
  }

  /** The end of the request: ResponseComplete (or Panic); a request refused by authentication gets its event here. */
  private async finish(req: IncomingRequest, res: Response): Promise<void> {
    let audit = this.progress.get(req)?.audit;
    if (!audit) {
      if ('user' in req.scope) return; // authenticated, audited at level None
      // Authentication failed before the audit stage: kube's failed-authentication event.
      audit = this.open(req, undefined);
      if (!audit) return;
      audit.completed = true;
      this.update(req, audit, res.statusCode);
      if (res.statusCode === 401) audit.event.responseStatus = { ...audit.event.responseStatus!, message: attemptedAuthentication(req) };
      await this.emit(audit, 'ResponseStarted');
      return;
    }
    if (audit.completed) return;
    audit.completed = true;
    this.update(req, audit, res.statusCode);
    await this.emit(audit, audit.record.panicked ? 'Panic' : 'ResponseComplete');
  }

  /** Copies what the request recorded so far into the event. */
  private update(req: IncomingRequest, audit: RequestAudit, code: number): void {
    const { event, record, config } = audit;
    const meta = record.objectMeta;
    if (event.objectRef) {
      event.objectRef.namespace ||= meta.namespace;
      event.objectRef.name ||= meta.name;
      event.objectRef.uid ||= meta.uid;
      event.objectRef.resourceVersion ||= meta.resourceVersion;
    }
    const scope = req.scope as Partial<RequestScope>;
    if (scope.user && scope.authenticatedUser && scope.user !== scope.authenticatedUser) event.impersonatedUser = auditUser(scope.user);
    if (record.impersonationConstraint) event.authenticationMetadata = { impersonationConstraint: record.impersonationConstraint };
    event.responseStatus = record.responseStatus ? { ...record.responseStatus, code } : { metadata: {}, code };
    const strip = config.omitManagedFields ? withoutManagedFields : (body: unknown) => body;
    if (record.requestObject !== undefined) event.requestObject = strip(record.requestObject);
    if (record.responseObject !== undefined) event.responseObject = strip(record.responseObject);
  }

  /** Sends the event at a stage unless the policy omits that stage; false when a strict backend failed. */
  private async emit(audit: RequestAudit, stage: AuditStage): Promise<boolean> {
    if (audit.config.omitStages.includes(stage)) return true;
    const e = audit.event;
    // A copy in kube's field order: a batch may hold it while the request goes on.
    const event: AuditEvent = {
      kind: e.kind,
      apiVersion: e.apiVersion,
      level: e.level,
      auditID: e.auditID,
      stage,
      requestURI: e.requestURI,
      verb: e.verb,
      user: e.user,
      impersonatedUser: e.impersonatedUser,
      authenticationMetadata: e.authenticationMetadata,
      sourceIPs: e.sourceIPs,
      userAgent: e.userAgent,
      objectRef: e.objectRef && { ...e.objectRef },
      responseStatus: e.responseStatus,
      requestObject: e.requestObject,
      responseObject: e.responseObject,
      requestReceivedTimestamp: e.requestReceivedTimestamp,
      stageTimestamp: microTimestamp(),
      annotations: Object.keys(audit.record.annotations).length ? { ...audit.record.annotations } : undefined,
    };
    recordAuditEvent();
    try {
      return await this.backend!.processEvents([event]);
    } catch (err) {
      this.logger.error(`audit backend failed: ${(err as Error).message}`);
      return false;
    }
  }
}
