import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAuditSettings } from '../../../src/audit/audit-settings';
import { AuditBackend } from '../../../src/audit/backends';
import { AuditEvent } from '../../../src/audit/event';
import { TRUNCATED_ANNOTATION, TruncatingBackend } from '../../../src/audit/truncate';
import { defaultAuditOptions } from '../../../src/config/options';
import { validateAudit } from '../../../src/config/options/audit';
import { metricsRegistry } from '../../../src/metrics/registry';

const event = (id: string, level: AuditEvent['level'] = 'RequestResponse', body = ''): AuditEvent => ({
  kind: 'Event',
  apiVersion: 'audit.platform.io/v1',
  level,
  auditID: id,
  stage: 'ResponseComplete',
  requestURI: '/apis/rbac.authorization.platform.io/v1/clusterroles',
  verb: 'create',
  user: { username: 'alice' },
  ...(level === 'RequestResponse' ? { requestObject: { body }, responseObject: { body } } : {}),
  requestReceivedTimestamp: '2026-11-24T05:00:00.123456Z',
  stageTimestamp: '2026-11-24T05:00:00.223456Z',
  annotations: { 'authorization.platform.io/decision': 'allow' },
});

const size = (e: AuditEvent) => Buffer.byteLength(JSON.stringify(e));

/** A backend that records the batches it is given, answering synchronously or later. */
function recorder(async = false): AuditBackend & { batches: AuditEvent[][] } {
  const batches: AuditEvent[][] = [];
  return {
    batches,
    processEvents: (events) => {
      batches.push(events);
      return async ? new Promise((resolve) => setImmediate(() => resolve(true))) : true;
    },
    shutdown: async () => undefined,
  };
}

const truncateErrors = async () => Number((await metricsRegistry.getSingleMetricAsString('apiserver_audit_error_total')).match(/plugin="truncate"} (\d+)/)?.[1] ?? 0);

describe('the truncating audit backend', () => {
  it('passes small events through untouched, in one batch', () => {
    const delegate = recorder();
    const events = [event('a'), event('b', 'Metadata')];
    expect(new TruncatingBackend(delegate, { maxEventSize: 100_000, maxBatchSize: 1_000_000 }).processEvents(events)).toBe(true);
    expect(delegate.batches).toEqual([events]);
  });

  it('removes request and response objects of an event over the limit and annotates it', () => {
    const delegate = recorder();
    const big = event('big', 'RequestResponse', 'x'.repeat(5000));
    expect(new TruncatingBackend(delegate, { maxEventSize: 2000, maxBatchSize: 10_000 }).processEvents([big])).toBe(true);
    const [[sent]] = delegate.batches;
    expect(sent).not.toHaveProperty('requestObject');
    expect(sent).not.toHaveProperty('responseObject');
    expect(sent.annotations).toEqual({ 'authorization.platform.io/decision': 'allow', [TRUNCATED_ANNOTATION]: 'true' });
    expect(sent).toMatchObject({ auditID: 'big', verb: 'create', level: 'RequestResponse' });
    // The original event is left as it was.
    expect(big.requestObject).toEqual({ body: 'x'.repeat(5000) });
    expect(big.annotations).not.toHaveProperty(TRUNCATED_ANNOTATION);
  });

  it('drops an event still too large, counting it under plugin "truncate", without failing the batch', async () => {
    const before = await truncateErrors();
    const delegate = recorder();
    const huge = { ...event('huge', 'Metadata'), requestURI: `/api/v1/namespaces?x=${'y'.repeat(3000)}` };
    const truncatedStillHuge = { ...event('huge2', 'RequestResponse', 'x'.repeat(3000)), requestURI: huge.requestURI };
    const small = event('small', 'Metadata');
    expect(new TruncatingBackend(delegate, { maxEventSize: 2000, maxBatchSize: 10_000 }).processEvents([huge, small, truncatedStillHuge])).toBe(true);
    expect(delegate.batches).toEqual([[small]]);
    expect(await truncateErrors()).toBe(before + 2);
  });

  it('splits batches by serialized size, keeping order; an event larger than a batch goes alone', () => {
    const delegate = recorder();
    const events = ['1', '2', '3', '4', '5'].map((id) => event(id, 'Metadata'));
    const one = size(events[0]);
    expect(new TruncatingBackend(delegate, { maxEventSize: one, maxBatchSize: Math.floor(one * 2.5) }).processEvents(events)).toBe(true);
    expect(delegate.batches.map((b) => b.map((e) => e.auditID))).toEqual([['1', '2'], ['3', '4'], ['5']]);

    const alone = recorder();
    expect(new TruncatingBackend(alone, { maxEventSize: one, maxBatchSize: one - 1 }).processEvents(events.slice(0, 3))).toBe(true);
    expect(alone.batches.map((b) => b.map((e) => e.auditID))).toEqual([['1'], ['2'], ['3']]);
  });

  it('sends the batches of an asynchronous backend one after another and reports its failures', async () => {
    const delegate = recorder(true);
    const events = ['1', '2', '3'].map((id) => event(id, 'Metadata'));
    const result = new TruncatingBackend(delegate, { maxEventSize: size(events[0]), maxBatchSize: size(events[0]) }).processEvents(events);
    expect(delegate.batches).toHaveLength(1);
    await expect(result).resolves.toBe(true);
    expect(delegate.batches.map((b) => b[0].auditID)).toEqual(['1', '2', '3']);

    const failing: AuditBackend = { processEvents: () => Promise.resolve(false), shutdown: async () => undefined };
    await expect(new TruncatingBackend(failing, { maxEventSize: 100_000, maxBatchSize: 100_000 }).processEvents(events)).resolves.toBe(false);
  });
});

describe('the truncate settings of the audit backends', () => {
  let dir: string;
  let policyFile: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'audit-truncate-'));
    policyFile = join(dir, 'policy.yaml');
    writeFileSync(policyFile, 'apiVersion: audit.platform.io/v1\nkind: Policy\nrules: [{level: Metadata}]\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // The flags' check (kube's AuditOptions.Validate), which the start runs before anything is loaded.
  const refused = (options: Partial<ReturnType<typeof defaultAuditOptions>>): string =>
    validateAudit({ ...defaultAuditOptions(), policyFile, logPath: '-', ...options })[0]?.message ?? 'accepted';
  const truncate = { enabled: true, maxBatchSize: 10_485_760, maxEventSize: 102_400 };

  it('truncate only when enabled', () => {
    expect(loadAuditSettings({ ...defaultAuditOptions(), policyFile, logPath: '-' }, [])!.log!.truncate).toBeUndefined();
    expect(loadAuditSettings({ ...defaultAuditOptions(), policyFile, logPath: '-', logTruncate: { ...truncate, maxEventSize: 2000 } }, [])!.log!.truncate).toEqual({
      maxBatchSize: 10_485_760,
      maxEventSize: 2000,
    });
  });

  it('refuse sizes that are not positive, or an event size over the batch size, naming the flag', () => {
    expect(refused({ logTruncate: { ...truncate, maxEventSize: 0 } })).toBe('--audit-log-truncate-max-event-size: invalid audit truncate log max event size 0, must be a positive number');
    expect(refused({ logTruncate: { ...truncate, maxBatchSize: -1 } })).toBe(
      '--audit-log-truncate-max-batch-size: invalid audit truncate log max batch size -1, must be greater than max event size (102400)',
    );
    expect(refused({ logTruncate: { ...truncate, maxBatchSize: 2000, maxEventSize: 3000 } })).toBe(
      '--audit-log-truncate-max-batch-size: invalid audit truncate log max batch size 2000, must be greater than max event size (3000)',
    );
    expect(refused({ logTruncate: { ...truncate, maxBatchSize: 3000, maxEventSize: 3000 } })).toBe('accepted');
    // As kube, the sizes of an enabled backend are checked whether truncating is on or not.
    expect(refused({ logTruncate: { ...truncate, enabled: false, maxEventSize: -5 } })).toMatch(/^--audit-log-truncate-max-event-size: /);
  });
});
