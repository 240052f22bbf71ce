import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordResponseError } from '../../../src/audit/audit-context';
import { scopeFor } from '../../support/request-scope';
import { errors } from '../../../src/apimachinery/errors';
import { AuditSettings } from '../../../src/audit/audit-settings';
import { parseAuditPolicy } from '../../../src/audit/policy';
import { RequestAuditor } from '../../../src/endpoints/filters/request-auditor';
import { addAuditAnnotation } from '../../../src/audit/audit-context';

/** The auditor's stages on a hand-made request and response, writing to a log file. */
describe('the request auditor', () => {
  let dir: string;
  let auditor: RequestAuditor;
  let logPath: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'auditor-'));
    logPath = join(dir, 'audit.log');
    const settings: AuditSettings = {
      policy: parseAuditPolicy('apiVersion: audit.platform.io/v1\nkind: Policy\nrules: [{level: Metadata}]\n'),
      log: {
        path: logPath,
        format: 'json',
        mode: 'blocking',
        batch: { bufferSize: 1, maxBatchSize: 1, maxBatchWaitMs: 0, throttleQps: 0, throttleBurst: 0 },
        rotation: { maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0, compress: false },
      },
    };
    auditor = new RequestAuditor(settings);
  });
  afterEach(async () => {
    await auditor.flush();
    rmSync(dir, { recursive: true, force: true });
  });

  const alice = { username: 'alice', groups: ['system:authenticated'] };

  function exchange(headers: Record<string, string> = {}) {
    const path = '/api/v1/namespaces/ns/pods';
    const req = Object.assign(new EventEmitter(), {
      method: 'GET',
      url: path,
      originalUrl: path,
      path,
      headers,
      query: {},
      socket: { remoteAddress: '::ffff:10.1.2.3' },
      scope: scopeFor('GET', path, alice),
    });
    const sent: Record<string, string> = {};
    const res = Object.assign(new EventEmitter(), {
      statusCode: 200,
      headersSent: false,
      hasHeader: (name: string) => name in sent,
      setHeader: (name: string, value: string) => (sent[name] = value),
      writeHead: () => undefined,
    });
    return { req: req as any, res: res as any, sent };
  }
  const lines = () => readFileSync(logPath, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));

  it('ends a request that failed unexpectedly with a Panic event instead of ResponseComplete', async () => {
    const { req, res } = exchange({ 'x-forwarded-for': '192.0.2.7, 198.51.100.1' });
    const next = jest.fn();
    auditor.init.use(req, res, next);
    await auditor.received.use(req, res, next);
    expect(next).toHaveBeenCalledTimes(2);
    expect(next.mock.calls.every((c) => c.length === 0)).toBe(true);
    recordResponseError(req.scope.audit, errors.internal('the server could not complete the request').toStatus(), true);
    res.statusCode = 500;
    res.emit('finish');
    res.emit('close');
    const events = lines();
    expect(events.map((e) => e.stage)).toEqual(['RequestReceived', 'Panic']);
    expect(events[1].auditID).toBe('test-audit-id');
    expect(events[1].sourceIPs).toEqual(['192.0.2.7', '198.51.100.1', '10.1.2.3']);
    expect(events[1].responseStatus).toEqual({ metadata: {}, status: 'Failure', message: 'Internal error occurred: the server could not complete the request', reason: 'InternalError', code: 500 });
  });

  it('puts the annotations later stages record (a deprecated version\'s) on the event', async () => {
    const { req, res } = exchange();
    auditor.init.use(req, res, () => undefined);
    await auditor.received.use(req, res, () => undefined);
    addAuditAnnotation(req.scope.audit, 'platform.io/deprecated', 'true');
    addAuditAnnotation(req.scope.audit, 'platform.io/removed-release', '1.40');
    res.emit('finish');
    expect(lines()[1].annotations).toEqual({ 'platform.io/deprecated': 'true', 'platform.io/removed-release': '1.40' });
  });

  it('writes ResponseComplete once however the response ends', async () => {
    const { req, res } = exchange();
    auditor.init.use(req, res, () => undefined);
    await auditor.received.use(req, res, () => undefined);
    res.emit('close');
    res.emit('finish');
    expect(lines().map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
  });
});
