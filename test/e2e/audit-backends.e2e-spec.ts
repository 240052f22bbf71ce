import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultAuditOptions } from '../../src/config/options';
import { FlagError } from '../../src/config/flags';
import { eventually } from '../support/eventually';
import { startTestServer, TestServer } from '../support/test-server';
import { metricSample, startTestWebhook, TestWebhook, WebhookReply } from '../support/webhook-server';

const POLICY = `
apiVersion: audit.platform.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/metrics", "/livez*", "/readyz*", "/healthz*"]
- level: RequestResponse
  resources: [{group: "", resources: [configmaps]}]
- level: Metadata
`;

/** The error a promise rejects with. */
async function thrown(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('no error');
}

const ok: WebhookReply = { status: 200, body: {} };
const failing: WebhookReply = { status: 500, body: { kind: 'Status', message: 'receiver down' } };

/** The auditIDs and stages of every event a webhook received. */
const received = (webhook: TestWebhook) => webhook.recorded.flatMap((r) => (r.body.items as any[]).map((e) => `${e.auditID}/${e.stage}`));

describe('audit backends: webhook batches, bounded buffer, batch log flushed on shutdown and rotated', () => {
  let dir: string;
  let webhook: TestWebhook;
  let server: TestServer | undefined;
  const reply: { next: WebhookReply[]; otherwise: WebhookReply } = { next: [], otherwise: ok };
  let logPath: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'audit-backends-e2e-'));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    webhook = await startTestWebhook(() => reply.next.shift() ?? reply.otherwise);
    logPath = join(dir, 'audit.log');
    const d = defaultAuditOptions();
    server = await startTestServer({
      options: {
        audit: {
          ...d,
          policyFile: join(dir, 'policy.yaml'),
          logPath,
          logMode: 'batch',
          // Nothing is written before shutdown unless 1000 events gather.
          logBatch: { ...d.logBatch, maxSize: 1000, maxWaitMs: 3_600_000 },
          logMaxSize: 1,
          logMaxBackup: 1,
          webhookConfigFile: webhook.writeKubeconfig(dir),
          webhookMode: 'batch',
          webhookBatch: { ...d.webhookBatch, bufferSize: 6, maxSize: 3, maxWaitMs: 100, throttleEnable: false },
          webhookInitialBackoffMs: 50,
        },
      },
    });
  });
  afterAll(async () => {
    await webhook?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends EventList batches to the webhook with its credential, retrying a failed delivery', async () => {
    reply.next = [failing];
    const res = await server!.admin.get('/api/v1/namespaces?limit=1');
    expect(res.status).toBe(200);
    const id = res.headers['audit-id'] as string;
    await eventually(() => expect(webhook.recorded.length).toBeGreaterThanOrEqual(2));
    expect(received(webhook)).toContain(`${id}/ResponseComplete`);
    const first = webhook.recorded[0];
    expect(first.authorization).toBe('Bearer webhook-token');
    expect(first.body).toMatchObject({ kind: 'EventList', apiVersion: 'audit.platform.io/v1', metadata: {} });
    expect(first.body.items[0]).toMatchObject({ kind: 'Event', apiVersion: 'audit.platform.io/v1', auditID: id, stage: 'RequestReceived', level: 'Metadata' });
    // The batch the receiver refused came again.
    expect(webhook.recorded[1].body.items).toEqual(first.body.items);
  });

  it('drops and counts events beyond the buffer while the webhook hangs; requests do not wait for it', async () => {
    const errorsBefore = metricSample((await server!.admin.get('/metrics')).text, 'apiserver_audit_error_total{plugin="buffered"}') ?? 0;
    reply.otherwise = 'hang';
    for (let i = 0; i < 8; i++) {
      const started = Date.now();
      const res = await server!.admin.get('/api/v1/namespaces?limit=1');
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(2000);
    }
    // One batch of 3 hangs in flight, 6 wait in the buffer, the rest of the 16 events are dropped.
    const page = (await server!.admin.get('/metrics')).text;
    expect((metricSample(page, 'apiserver_audit_error_total{plugin="buffered"}') ?? 0) - errorsBefore).toBe(16 - 3 - 6);
    expect(metricSample(page, 'apiserver_audit_event_total')).toBeGreaterThanOrEqual(18);
    expect(page).toContain('# HELP apiserver_audit_event_total [ALPHA] Counter of audit events generated and sent to the audit backend.');
  });

  it('writes the batched log on shutdown, rotating at --audit-log-maxsize and keeping --audit-log-maxbackup files', async () => {
    const big = 'x'.repeat(400 * 1024);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await server!.admin.post('/api/v1/namespaces/default/configmaps', { metadata: { name: `big-${i}` }, data: { big } });
      expect(res.status).toBe(201);
      ids.push(res.headers['audit-id'] as string);
    }
    expect(statSync(logPath).size).toBe(0);
    await webhook.close();
    await server!.close();
    server = undefined;
    const backups = readdirSync(dir).filter((f) => /^audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}\.log$/.test(f));
    expect(backups).toHaveLength(1);
    const lines = [readFileSync(join(dir, backups[0]), 'utf8'), readFileSync(logPath, 'utf8')].join('').split('\n').filter(Boolean);
    const events = lines.map((l) => JSON.parse(l));
    // Each create's ResponseComplete holds two 400 KiB bodies: every file past the first starts with one.
    expect(statSync(logPath).size).toBeLessThan(1024 * 1024 + 64 * 1024);
    const last = events.filter((e) => e.auditID === ids[2]);
    expect(last.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    expect(last[1].responseObject.data.big).toHaveLength(400 * 1024);
  });
});

describe('audit webhook in blocking-strict mode', () => {
  let dir: string;
  let webhook: TestWebhook;
  let server: TestServer;
  const reply = { value: failing };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'audit-strict-e2e-'));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    webhook = await startTestWebhook(() => reply.value);
    server = await startTestServer({
      options: {
        audit: { ...defaultAuditOptions(), policyFile: join(dir, 'policy.yaml'), webhookConfigFile: webhook.writeKubeconfig(dir), webhookMode: 'blocking-strict', webhookInitialBackoffMs: 10 },
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await webhook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails a request whose RequestReceived event cannot be delivered', async () => {
    const res = await server.admin.get('/api/v1/namespaces');
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'InternalError', message: 'Internal error occurred: failed to store audit event', code: 500 });
    const page = (await server.admin.get('/metrics')).text;
    expect(metricSample(page, 'apiserver_audit_requests_rejected_total')).toBeGreaterThanOrEqual(1);
    expect(metricSample(page, 'apiserver_audit_error_total{plugin="webhook"}')).toBeGreaterThanOrEqual(1);
  });

  it('delivers RequestReceived before the request is served', async () => {
    reply.value = ok;
    const res = await server.admin.get('/api/v1/namespaces');
    expect(res.status).toBe(200);
    expect(received(webhook)).toContain(`${res.headers['audit-id']}/RequestReceived`);
    await eventually(() => expect(received(webhook)).toContain(`${res.headers['audit-id']}/ResponseComplete`));
  });
});

describe('audit start-up errors', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'audit-flags-e2e-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stops the start with one line naming the flag and the field', async () => {
    const policyFile = join(dir, 'bad.yaml');
    writeFileSync(policyFile, 'apiVersion: audit.platform.io/v1\nkind: Policy\nrules:\n- level: Verbose\n');
    const err = await thrown(startTestServer({ options: { audit: { ...defaultAuditOptions(), policyFile, logPath: join(dir, 'a.log') } } }));
    expect(err).toBeInstanceOf(FlagError);
    expect((err as Error).message).toBe(
      `--audit-policy-file: loading audit policy file: rules[0].level: Unsupported value: "Verbose": supported values: "None", "Metadata", "Request", "RequestResponse": from file ${policyFile}`,
    );
    const missing = await thrown(startTestServer({ options: { audit: { ...defaultAuditOptions(), policyFile: join(dir, 'none.yaml'), logPath: '-' } } }));
    expect((missing as Error).message).toBe(`--audit-policy-file: open ${join(dir, 'none.yaml')}: no such file or directory`);
    writeFileSync(policyFile, 'apiVersion: audit.platform.io/v1\nkind: Policy\nrules: [{level: Metadata}]\n');
    const kubeconfig = await thrown(startTestServer({ options: { audit: { ...defaultAuditOptions(), policyFile, webhookConfigFile: join(dir, 'nope.kubeconfig') } } }));
    expect((kubeconfig as Error).message).toMatch(/^--audit-webhook-config-file: invalid configuration: cannot load kubeconfig/);
    const unwritable = await thrown(startTestServer({ options: { audit: { ...defaultAuditOptions(), policyFile, logPath: join(policyFile, 'audit.log') } } }));
    expect((unwritable as Error).message).toMatch(/^--audit-log-path: ensureLogFile: /);
  });
});

describe('audit log with --audit-log-truncate-enabled', () => {
  let dir: string;
  let server: TestServer;
  let logPath: string;
  const RBAC = '/apis/rbac.authorization.platform.io/v1';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'audit-truncate-e2e-'));
    writeFileSync(join(dir, 'policy.yaml'), 'apiVersion: audit.platform.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n  resources: [{group: rbac.authorization.platform.io, resources: [clusterroles]}]\n- level: None\n');
    logPath = join(dir, 'audit.log');
    const d = defaultAuditOptions();
    server = await startTestServer({
      options: {
        audit: { ...d, policyFile: join(dir, 'policy.yaml'), logPath, logFormat: 'json', logTruncate: { enabled: true, maxBatchSize: d.logTruncate.maxBatchSize, maxEventSize: 2000 } },
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const completeOf = async (auditId: string): Promise<any> => {
    const find = () =>
      readFileSync(logPath, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
        .find((e) => e.auditID === auditId && e.stage === 'ResponseComplete');
    await eventually(() => expect(find()).toBeDefined());
    return find();
  };

  it('writes a large event without its request and response objects, annotated, and a small one intact', async () => {
    const rules = Array.from({ length: 40 }, (_, i) => ({ apiGroups: [`group-${i}.example.com`], resources: ['widgets', 'gadgets'], verbs: ['get', 'list', 'watch'] }));
    const large = await server.admin.post(`${RBAC}/clusterroles`, { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'ClusterRole', metadata: { name: 'large' }, rules });
    expect(large.status).toBe(201);
    const truncated = await completeOf(large.headers['audit-id'] as string);
    expect(truncated).toMatchObject({ level: 'RequestResponse', verb: 'create', objectRef: { resource: 'clusterroles', name: 'large' } });
    expect(truncated).not.toHaveProperty('requestObject');
    expect(truncated).not.toHaveProperty('responseObject');
    expect(truncated.annotations).toMatchObject({ 'audit.platform.io/truncated': 'true' });

    const role = { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'ClusterRole', metadata: { name: 'small' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] };
    const small = await server.admin.post(`${RBAC}/clusterroles`, role);
    expect(small.status).toBe(201);
    const intact = await completeOf(small.headers['audit-id'] as string);
    expect(intact.requestObject).toEqual(role);
    expect(intact.responseObject).toMatchObject({ metadata: { name: 'small' }, rules: role.rules });
    expect(intact.annotations ?? {}).not.toHaveProperty('audit.platform.io/truncated');
  });
});
