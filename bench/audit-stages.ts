import 'reflect-metadata';
import { EventEmitter } from 'node:events';
import { closeSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addAuditAnnotation } from '../src/audit/audit-context';
import { resolveRequestInfo } from '../src/endpoints/request/request-info';
import { parseAuditPolicy } from '../src/audit/policy';
import { RequestAuditor } from '../src/endpoints/filters/request-auditor';

/**
 * The CPU time the audit stages add to one request at Metadata level with the log backend
 * (blocking, JSON lines to a file): the pipeline's audit work for a SubjectAccessReview POST,
 * run in a loop on hand-made requests, against the same loop with auditing off. Less noisy
 * than the HTTP benchmark's ratio on a busy machine. `npm run bench -- audit-stages`.
 */
export async function runAuditStagesBench(iterations = Number(process.env.BENCH_AUDIT_ITERATIONS ?? 50_000)): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-audit-stages-'));
  const logPath = join(dir, 'audit.log');
  const policy = parseAuditPolicy('apiVersion: audit.platform.io/v1\nkind: Policy\nrules: [{level: Metadata}]\n');
  const batch = { bufferSize: 1, maxBatchSize: 1, maxBatchWaitMs: 0, throttleQps: 0, throttleBurst: 0 };
  const rotation = { maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0, compress: false };
  const on = new RequestAuditor({ policy, log: { path: logPath, format: 'json', mode: 'blocking', batch, rotation } });
  const off = new RequestAuditor(null);
  const path = '/apis/authorization.platform.io/v1/subjectaccessreviews';
  const info = resolveRequestInfo('POST', path, {});
  const user = { username: 'bench-delegator', groups: ['system:authenticated'] };
  const once = async (auditor: RequestAuditor) => {
    const req = Object.assign(new EventEmitter(), {
      method: 'POST', url: path, originalUrl: path, path, query: {}, requestInfo: info, userInfo: user,
      headers: { 'user-agent': 'bench/1.0', 'content-type': 'application/json' }, socket: { remoteAddress: '127.0.0.1' },
    }) as any;
    const res = Object.assign(new EventEmitter(), { statusCode: 201, setHeader: () => undefined, writeHead: () => undefined }) as any;
    auditor.init.use(req, res, () => undefined);
    await auditor.received.use(req, res, () => undefined);
    addAuditAnnotation(req, 'authorization.platform.io/decision', 'allow');
    addAuditAnnotation(req, 'authorization.platform.io/reason', 'RBAC: allowed by ClusterRoleBinding "bench-delegator" of ClusterRole "system:auth-delegator" to User "bench-delegator"');
    res.emit('finish');
    res.emit('close');
  };
  const measure = async (auditor: RequestAuditor) => {
    for (let i = 0; i < iterations / 10; i++) await once(auditor);
    // CPU time of this process (user and system: the writes are system calls), not wall time,
    // so other processes on the machine do not count.
    const started = process.cpuUsage();
    for (let i = 0; i < iterations; i++) await once(auditor);
    const used = process.cpuUsage(started);
    return (used.user + used.system) / iterations;
  };
  try {
    const rounds: number[] = [];
    for (let round = 0; round < 5; round++) rounds.push((await measure(on)) - (await measure(off)));
    rounds.sort((a, b) => a - b);
    const head = Buffer.alloc(4096);
    const fd = openSync(logPath, 'r');
    readSync(fd, head, 0, head.length, 0);
    closeSync(fd);
    const eventBytes = head.indexOf('\n') + 1;
    console.log(
      `audit at Metadata level, log backend (blocking, json): ${rounds[2].toFixed(1)} µs of CPU per request (median of 5 rounds of ${iterations}; 2 events, the first of ${eventBytes} bytes)`,
    );
  } finally {
    await on.flush();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  runAuditStagesBench().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
