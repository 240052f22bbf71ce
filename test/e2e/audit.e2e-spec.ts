import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultAuditOptions } from '../../src/config/options';
import { eventually } from '../support/eventually';
import { startTestServer, TestServer } from '../support/test-server';
import { writeTokenFile } from '../support/token-file';

const RBAC = '/apis/rbac.authorization.platform.io/v1';

/** Rules exercising every level, stage omission, managed fields and the Secret rule. */
const POLICY = `
apiVersion: audit.platform.io/v1
kind: Policy
rules:
- level: None
  users: [quiet]
- level: None
  nonResourceURLs: ["/livez*", "/readyz*", "/healthz*"]
- level: RequestResponse
  users: [secret-auditor]
  resources: [{group: "", resources: [secrets]}]
- level: RequestResponse
  users: [broad]
- level: Metadata
  resources: [{group: "", resources: [secrets]}]
- level: Request
  resources: [{group: "", resources: [configmaps]}]
  omitStages: [RequestReceived]
- level: RequestResponse
  resources: [{group: rbac.authorization.platform.io, resources: [roles]}]
  omitManagedFields: true
- level: Metadata
`;

/** The audit log through the log backend in its default (blocking) mode, JSON lines. */
describe('audit events with a policy file and the log backend', () => {
  let server: TestServer;
  let dir: string;
  let logPath: string;
  const identities = new Map<string, ReturnType<TestServer['certFor']>>();
  const as = (user: string, groups: string[] = []) => {
    if (!identities.has(user)) identities.set(user, server.certFor(user, groups));
    return { as: identities.get(user)! };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'audit-e2e-'));
    const policyFile = join(dir, 'policy.yaml');
    writeFileSync(policyFile, POLICY);
    logPath = join(dir, 'logs', 'audit.log');
    const tokenAuthFile = writeTokenFile(dir, ['good-token,token-user,u1']);
    server = await startTestServer({ options: { tokenAuthFile, audit: { ...defaultAuditOptions(), policyFile, logPath } } });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const events = (): any[] =>
    readFileSync(logPath, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  const eventsOf = (auditId: string) => events().filter((e) => e.auditID === auditId);
  /** The events of a request once its last stage is written. */
  const settled = async (auditId: string, last = 'ResponseComplete'): Promise<any[]> => {
    await eventually(() => expect(eventsOf(auditId).map((e) => e.stage)).toContain(last));
    return eventsOf(auditId);
  };

  it('writes RequestReceived and ResponseComplete at Metadata level, with the Audit-ID header as auditID', async () => {
    const res = await server.admin.get('/api/v1/namespaces?limit=1', { headers: { 'User-Agent': 'audit-test/1.0' } });
    expect(res.status).toBe(200);
    const auditId = res.headers['audit-id'] as string;
    expect(auditId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const [received, complete] = await settled(auditId);
    expect(received).toEqual({
      kind: 'Event',
      apiVersion: 'audit.platform.io/v1',
      level: 'Metadata',
      auditID: auditId,
      stage: 'RequestReceived',
      requestURI: '/api/v1/namespaces?limit=1',
      verb: 'list',
      user: { username: 'test-admin', groups: ['system:masters', 'system:authenticated'] },
      sourceIPs: ['127.0.0.1'],
      userAgent: 'audit-test/1.0',
      objectRef: { resource: 'namespaces', apiVersion: 'v1' },
      requestReceivedTimestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/),
      stageTimestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/),
    });
    expect(complete).toEqual({
      ...received,
      stage: 'ResponseComplete',
      responseStatus: { metadata: {}, code: 200 },
      stageTimestamp: expect.any(String),
      annotations: { 'authorization.platform.io/decision': 'allow', 'authorization.platform.io/reason': '' },
    });
    expect(complete.stageTimestamp >= complete.requestReceivedTimestamp).toBe(true);
    expect(complete).not.toHaveProperty('requestObject');
    expect(complete).not.toHaveProperty('responseObject');
  });

  it('keeps an Audit-ID the client sent', async () => {
    const res = await server.admin.get('/version', { headers: { 'Audit-ID': 'front-proxy-id-1' } });
    expect(res.headers['audit-id']).toBe('front-proxy-id-1');
    const [, complete] = await settled('front-proxy-id-1');
    expect(complete).toMatchObject({ verb: 'get', requestURI: '/version', level: 'Metadata' });
    expect(complete).not.toHaveProperty('objectRef');
  });

  it('logs the request body at Request level, without the stage the rule omits', async () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-audit' }, data: { k: 'v' } };
    const res = await server.admin.post('/api/v1/namespaces/default/configmaps', cm);
    expect(res.status).toBe(201);
    const all = await settled(res.headers['audit-id'] as string);
    expect(all.map((e) => e.stage)).toEqual(['ResponseComplete']);
    expect(all[0]).toMatchObject({
      level: 'Request',
      verb: 'create',
      objectRef: { resource: 'configmaps', namespace: 'default', name: 'cm-audit', apiVersion: 'v1' },
      requestObject: cm,
      responseStatus: { metadata: {}, code: 201 },
    });
    expect(all[0]).not.toHaveProperty('responseObject');
  });

  it('logs request and response bodies at RequestResponse, managed fields left out when the rule says so', async () => {
    const role = { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'Role', metadata: { name: 'audited' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] };
    const res = await server.admin.post(`${RBAC}/namespaces/default/roles`, role);
    expect(res.status).toBe(201);
    expect(res.body.metadata.managedFields).toHaveLength(1);
    const [, complete] = await settled(res.headers['audit-id'] as string);
    expect(complete.level).toBe('RequestResponse');
    expect(complete.requestObject).toEqual(role);
    expect(complete.responseObject.metadata).toMatchObject({ name: 'audited', uid: res.body.metadata.uid, resourceVersion: res.body.metadata.resourceVersion });
    expect(complete.responseObject.metadata).not.toHaveProperty('managedFields');
    expect(complete.responseObject.rules).toEqual(role.rules);

    const patched = await server.admin.patch(`${RBAC}/namespaces/default/roles/audited`, { metadata: { labels: { a: 'b' } } }, 'application/merge-patch+json');
    expect(patched.status).toBe(200);
    const [, patchComplete] = await settled(patched.headers['audit-id'] as string);
    expect(patchComplete).toMatchObject({ verb: 'patch', requestObject: { metadata: { labels: { a: 'b' } } }, responseObject: { metadata: { labels: { a: 'b' } } } });
  });

  it('writes no event at level None', async () => {
    const res = await server.anonymous.get('/api/v1/namespaces', as('quiet', ['system:masters']));
    expect(res.status).toBe(200);
    const marker = await server.admin.get('/version');
    await settled(marker.headers['audit-id'] as string);
    expect(eventsOf(res.headers['audit-id'] as string)).toEqual([]);
    const health = await server.anonymous.get('/livez');
    expect(health.headers['audit-id']).toBeDefined();
    expect(eventsOf(health.headers['audit-id'] as string)).toEqual([]);
  });

  it('never logs Secret bodies unless a rule names secrets at Request level or above', async () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'token-1' }, stringData: { password: 'hunter2' } };
    const created = await server.anonymous.post('/api/v1/namespaces/default/secrets', secret, as('broad', ['system:masters']));
    expect(created.status).toBe(201);
    const broadEvents = await settled(created.headers['audit-id'] as string);
    // The "broad" rule says RequestResponse for everything, but does not name secrets.
    for (const e of broadEvents) {
      expect(e.level).toBe('Metadata');
      expect(JSON.stringify(e)).not.toContain('hunter2');
      expect(JSON.stringify(e)).not.toContain(Buffer.from('hunter2').toString('base64'));
    }
    expect(broadEvents[1].objectRef).toEqual({ resource: 'secrets', namespace: 'default', name: 'token-1', apiVersion: 'v1' });
    const listed = await server.admin.get('/api/v1/namespaces/default/secrets');
    for (const e of await settled(listed.headers['audit-id'] as string)) expect(JSON.stringify(e)).not.toContain(Buffer.from('hunter2').toString('base64'));

    // The same user creating a ConfigMap has its bodies logged.
    const cm = await server.anonymous.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'broad-cm' }, data: { x: 'visible' } }, as('broad', ['system:masters']));
    const [, cmComplete] = await settled(cm.headers['audit-id'] as string);
    expect(cmComplete).toMatchObject({ level: 'RequestResponse', requestObject: { data: { x: 'visible' } }, responseObject: { data: { x: 'visible' } } });

    // A rule naming secrets explicitly logs them.
    const read = await server.anonymous.get('/api/v1/namespaces/default/secrets/token-1', as('secret-auditor', ['system:masters']));
    expect(read.status).toBe(200);
    const [, readComplete] = await settled(read.headers['audit-id'] as string);
    expect(readComplete).toMatchObject({ level: 'RequestResponse', responseObject: { data: { password: Buffer.from('hunter2').toString('base64') } } });
  });

  it('annotates a refused request with the decision and the authorizer\'s reason, and keeps its Status', async () => {
    const res = await server.anonymous.get('/api/v1/namespaces/default/configmaps/cm-audit', as('nobody'));
    expect(res.status).toBe(403);
    const complete = (await settled(res.headers['audit-id'] as string)).at(-1);
    expect(complete.annotations['authorization.platform.io/decision']).toBe('forbid');
    expect(typeof complete.annotations['authorization.platform.io/reason']).toBe('string');
    expect(complete.responseStatus).toEqual({ metadata: {}, status: 'Failure', message: res.body.message, reason: 'Forbidden', details: res.body.details, code: 403 });

    const allowed = await server.anonymous.post('/apis/authentication.platform.io/v1/selfsubjectreviews', { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' }, as('nobody'));
    expect(allowed.status).toBe(201);
    const [, allowedComplete] = await settled(allowed.headers['audit-id'] as string);
    expect(allowedComplete.annotations).toEqual({
      'authorization.platform.io/decision': 'allow',
      'authorization.platform.io/reason': expect.stringContaining('RBAC: allowed by ClusterRoleBinding'),
    });
  });

  it('records the impersonated user beside the authenticated one (the policy sees the authenticated one)', async () => {
    const res = await server.admin.get('/api/v1/namespaces/default/configmaps/cm-audit', { headers: { 'Impersonate-User': 'quiet' } });
    expect(res.status).toBe(403);
    const complete = (await settled(res.headers['audit-id'] as string)).at(-1);
    expect(complete.level).toBe('Request');
    expect(complete.user.username).toBe('test-admin');
    expect(complete.impersonatedUser).toEqual({ username: 'quiet', groups: ['system:authenticated'] });
    // The first constrained mode that allows (system:masters may do anything) is recorded.
    expect(complete.authenticationMetadata).toEqual({ impersonationConstraint: 'impersonate:user-info' });
  });

  it('writes a ResponseStarted event for a request refused by authentication', async () => {
    const res = await server.anonymous.get('/api/v1/namespaces', { headers: { Authorization: 'Bearer not-a-token' } });
    expect(res.status).toBe(401);
    const all = await settled(res.headers['audit-id'] as string, 'ResponseStarted');
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({
      level: 'Metadata',
      stage: 'ResponseStarted',
      user: {},
      responseStatus: { metadata: {}, code: 401, message: 'Authentication failed, attempted: bearer' },
    });
  });

  it('writes ResponseStarted when a watch starts and ResponseComplete when it ends', async () => {
    const res = await server.admin.get('/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1');
    expect(res.status).toBe(200);
    const all = await settled(res.headers['audit-id'] as string);
    expect(all.map((e) => e.stage)).toEqual(['ResponseStarted', 'ResponseComplete']);
    expect(all[0]).toMatchObject({ verb: 'watch', responseStatus: { metadata: {}, code: 200 } });
    expect(all[0]).not.toHaveProperty('responseObject');
  });
});
