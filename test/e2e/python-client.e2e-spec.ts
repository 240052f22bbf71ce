import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, TestServer } from '../support/test-server';

const run = promisify(execFile);

/**
 * The official Python client (Debian's python3-kubernetes) as our third real client beside
 * kubectl and client-node: test/support/python-client-scenario.py drives the server through
 * `kubernetes.dynamic` (discovery, CRUD of every RBAC kind and Namespaces, the three patch
 * types, a stale replace, 404 and 422, a SubjectAccessReview, a watch and its resume) and
 * `kubernetes.watch` over all-namespace lists, and prints what it observed.
 */
const SCENARIO = join(__dirname, '..', 'support', 'python-client-scenario.py');

/** The first Python that has the client: the PATH's, else Debian's own interpreter. */
function pythonWithClient(): string | undefined {
  for (const python of ['python3', '/usr/bin/python3']) {
    try {
      execFileSync(python, ['-c', 'import kubernetes.dynamic'], { stdio: 'ignore', timeout: 20000 });
      return python;
    } catch {
      // not this one
    }
  }
  return undefined;
}

const python = pythonWithClient();
const missing = python ? undefined : 'no python3 with the kubernetes client (apt-get install python3-kubernetes)';

interface StatusSeen {
  status: number | string;
  reason?: string;
  message?: string;
  kind?: string;
}

(missing ? describe.skip : describe)('the official Python client', () => {
  let server: TestServer;
  let report: { steps: Record<string, Record<string, unknown>>; errors: Record<string, string> };

  beforeAll(async () => {
    server = await startTestServer();
    const { stdout } = await run(python!, [SCENARIO, server.kubeconfigPath, 'py'], { timeout: 120000, maxBuffer: 16 * 1024 * 1024 });
    report = JSON.parse(stdout);
  }, 180000);
  afterAll(async () => {
    await server?.close();
  });

  it('finishes every step without an exception', () => {
    expect(report.errors).toEqual({});
  });

  it('creates, reads and lists a Namespace', () => {
    expect(report.steps.namespace).toEqual({ created: 'py-ns', phase: 'Active', listed: true });
  });

  it.each(['ClusterRole', 'Role', 'ClusterRoleBinding', 'RoleBinding'])('%s: create, get, list, merge / strategic / JSON patch, replace, and a stale replace is 409', (kind) => {
    const plural = `${kind.toLowerCase()}s`;
    expect(report.steps[`crud ${kind}`]).toEqual({
      created: 'py-reader',
      got: 'py-reader',
      listed: true,
      labels: { merge: 'yes', strategic: 'yes', replaced: 'yes' },
      annotations: { json: 'yes' },
      resourceVersionsGrow: true,
      staleReplace: {
        status: 409,
        reason: 'Conflict',
        kind: 'Status',
        message: `Operation cannot be fulfilled on ${plural}.rbac.authorization.platform.io "py-reader": the object has been modified; please apply your changes to the latest version and try again`,
      },
    });
  });

  it('raises 404 and 422 with the Status the server wrote', () => {
    const { notFound, invalid } = report.steps.errors as Record<string, StatusSeen>;
    expect(notFound).toEqual({ status: 404, reason: 'NotFound', kind: 'Status', message: 'roles.rbac.authorization.platform.io "py-missing" not found' });
    expect(invalid).toMatchObject({ status: 422, reason: 'Invalid', kind: 'Status' });
    expect(invalid.message).toContain('rules[0].verbs: Required value');
  });

  it('answers a SubjectAccessReview', () => {
    expect(report.steps['subject access review']).toEqual({
      list: true,
      delete: false,
      reason: 'RBAC: allowed by ClusterRoleBinding "py-reader" of ClusterRole "py-reader" to User "py-alice"',
    });
  });

  it('watches (it sends watch=True): ADDED, MODIFIED, DELETED in order, and resumes from a resourceVersion', () => {
    expect(report.steps.watch).toEqual({ types: ['ADDED', 'MODIFIED', 'DELETED'], resumed: ['DELETED'], resourceVersionsGrow: true });
  });

  it('deletes each kind (then 404) and a Namespace (Terminating)', () => {
    // kube answers a delete of an RBAC object with a Success Status, and of a Namespace with the namespace, now Terminating.
    const gone = { deleted: 'Status', after: 404 };
    expect(report.steps.delete).toEqual({ ClusterRole: gone, Role: gone, ClusterRoleBinding: gone, RoleBinding: gone, Namespace: { deleted: 'Namespace', phase: 'Terminating' } });
  });

  it('kubernetes.watch follows all-namespace lists, typed and dynamic', () => {
    expect(report.steps['watch across namespaces']).toEqual({
      configMaps: [
        ['ADDED', 'V1ConfigMap', 'py-ns'],
        ['ADDED', 'V1ConfigMap', 'py-other'],
      ],
      roleBindings: [
        ['ADDED', 'py-ns'],
        ['ADDED', 'py-other'],
      ],
    });
  });
});

if (missing) {
  describe('the official Python client', () => {
    it.skip(`skipped: ${missing}`, () => undefined);
  });
}
