import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { AuditBackend, BufferedBackend } from '../../../src/audit/backends';
import { AuditEvent, legacyEventLine } from '../../../src/audit/event';
import { RotatingFile } from '../../../src/audit/rotating-file';
import { metricsRegistry } from '../../../src/metrics/registry';
import { eventually } from '../../support/eventually';

const event = (id: string): AuditEvent => ({
  kind: 'Event',
  apiVersion: 'audit.platform.io/v1',
  level: 'Metadata',
  auditID: id,
  stage: 'ResponseComplete',
  requestURI: '/api/v1/namespaces/ns/secrets?limit=1',
  verb: 'list',
  user: { username: 'alice', groups: ['dev', 'system:authenticated'] },
  sourceIPs: ['10.0.0.1', '127.0.0.1'],
  userAgent: 'kubectl/v1.33.0',
  objectRef: { resource: 'secrets', namespace: 'ns', apiVersion: 'v1' },
  responseStatus: { metadata: {}, code: 200 },
  requestReceivedTimestamp: '2026-11-24T05:00:00.123456Z',
  stageTimestamp: '2026-11-24T05:00:00.223456Z',
});

describe('the legacy audit line', () => {
  it('is kube\'s EventString', () => {
    expect(legacyEventLine(event('id-1'))).toBe(
      '2026-11-24T05:00:00.123456Z AUDIT: id="id-1" stage="ResponseComplete" ip="10.0.0.1" method="list" user="alice" groups="\\"dev\\",\\"system:authenticated\\"" as="<self>" asgroups="<lookup>" user-agent="kubectl/v1.33.0" namespace="ns" uri="/api/v1/namespaces/ns/secrets?limit=1" response="200"',
    );
    const impersonated = { ...event('id-2'), impersonatedUser: { username: 'bob' }, responseStatus: undefined, user: {}, objectRef: undefined };
    expect(legacyEventLine(impersonated)).toContain('user="<none>" groups="<none>" as="bob" asgroups="<lookup>" user-agent="kubectl/v1.33.0" namespace="<none>"');
    expect(legacyEventLine(impersonated)).toMatch(/response="<deferred>"$/);
  });
});

describe('the rotating audit file', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'audit-rotate-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const line = (n: number) => `${String(n).padStart(6, '0')}${'x'.repeat(400 * 1024)}\n`;

  it('rotates before passing the size, names backups by UTC time, and keeps maxBackups of them', () => {
    const file = new RotatingFile(join(dir, 'audit.log'), { maxSizeMB: 1, maxBackups: 2, maxAgeDays: 0, compress: false });
    for (let n = 0; n < 9; n++) file.write(line(n));
    file.close();
    const backups = readdirSync(dir).filter((f) => f !== 'audit.log').sort();
    expect(backups).toHaveLength(2);
    for (const b of backups) expect(b).toMatch(/^audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}\.log$/);
    // Two 400 KiB lines fit in 1 MiB, a third does not: files of two lines, the newest two kept.
    const firsts = (name: string) => readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean).map((l) => l.slice(0, 6));
    expect(firsts('audit.log')).toEqual(['000008']);
    expect(firsts(backups[0])).toEqual(['000004', '000005']);
    expect(firsts(backups[1])).toEqual(['000006', '000007']);
    expect(statSync(join(dir, backups[1])).size).toBeLessThanOrEqual(1024 * 1024);
  });

  it('removes backups older than maxAge by the time in their name, and compresses when asked', () => {
    writeFileSync(join(dir, 'audit-2020-01-01T00-00-00.000.log'), 'old\n');
    writeFileSync(join(dir, 'unrelated.log'), 'kept\n');
    const file = new RotatingFile(join(dir, 'audit.log'), { maxSizeMB: 1, maxBackups: 0, maxAgeDays: 1, compress: true });
    for (let n = 0; n < 4; n++) file.write(line(n));
    file.close();
    const names = readdirSync(dir).sort();
    expect(names).not.toContain('audit-2020-01-01T00-00-00.000.log');
    expect(names).toContain('unrelated.log');
    const gz = names.filter((n) => n.endsWith('.log.gz'));
    expect(gz).toHaveLength(1);
    expect(gunzipSync(readFileSync(join(dir, gz[0]))).toString('utf8').slice(0, 6)).toBe('000000');
  });
});

describe('the buffered audit backend', () => {
  class Recorder implements AuditBackend {
    batches: string[][] = [];
    release?: () => void;
    hold = false;
    async processEvents(events: AuditEvent[]): Promise<boolean> {
      if (this.hold) await new Promise<void>((r) => (this.release = r));
      this.batches.push(events.map((e) => e.auditID));
      return true;
    }
    async shutdown(): Promise<void> {}
  }
  const config = { bufferSize: 3, maxBatchSize: 2, maxBatchWaitMs: 60_000, throttleQps: 0, throttleBurst: 0 };

  it('sends full batches at once and the rest on shutdown', async () => {
    const sink = new Recorder();
    const buffered = new BufferedBackend(sink, config);
    expect(buffered.processEvents([event('a'), event('b'), event('c')])).toBe(true);
    await eventually(() => expect(sink.batches).toEqual([['a', 'b']]));
    await buffered.shutdown();
    expect(sink.batches).toEqual([['a', 'b'], ['c']]);
  });

  it('sends a partial batch when the wait is over', async () => {
    const sink = new Recorder();
    const buffered = new BufferedBackend(sink, { ...config, maxBatchWaitMs: 50 });
    buffered.processEvents([event('a')]);
    await eventually(() => expect(sink.batches).toEqual([['a']]));
    await buffered.shutdown();
  });

  it('drops and counts what does not fit while the delegate is stuck, without waiting', async () => {
    const errors = async () => (await metricsRegistry.getSingleMetricAsString('apiserver_audit_error_total')).match(/plugin="buffered"} (\d+)/)?.[1] ?? '0';
    const before = Number(await errors());
    const sink = new Recorder();
    sink.hold = true;
    const buffered = new BufferedBackend(sink, config);
    buffered.processEvents([event('a'), event('b')]);
    await eventually(() => expect(sink.release).toBeDefined());
    expect(buffered.processEvents([event('c'), event('d'), event('e')])).toBe(true);
    expect(buffered.processEvents([event('f'), event('g')])).toBe(false);
    expect(Number(await errors()) - before).toBe(2);
    sink.hold = false;
    sink.release!();
    await buffered.shutdown();
    expect(sink.batches.flat()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});
