import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * EscalationPathReview: paths to cluster-admin (or a permission) found from real objects, then
 * walked for real as the subject: each found path's steps are performed and reach the target;
 * a subject with no path fails the same attempts.
 */
const ACCESS = '/apis/access.platform.io/v1';
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const RBAC_GROUP = 'rbac.authorization.platform.io';

const user = (name: string) => ({ kind: 'User', apiGroup: RBAC_GROUP, name });
const sa = (namespace: string, name: string) => ({ kind: 'ServiceAccount', name, namespace });
const roleRef = (name: string) => ({ apiGroup: RBAC_GROUP, kind: 'ClusterRole', name });
const review = (spec: object) => ({ apiVersion: 'access.platform.io/v1', kind: 'EscalationPathReview', spec });
const PLUGIN = resolve(__dirname, '..', '..', 'bin', 'kubectl-access');
const TOKEN_REQUEST = { apiVersion: 'authentication.platform.io/v1', kind: 'TokenRequest', spec: {} };

describe('escalation paths', () => {
  let server: TestServer;
  const as = (name: string, groups: string[] = []) => ({ as: server.certFor(name, groups) });

  const created = async (path: string, body: object) => {
    const res = await server.admin.post(path, body);
    expect({ status: res.status, body: res.status === 201 ? undefined : res.body }).toEqual({ status: 201, body: undefined });
  };
  const paths = async (spec: object) => {
    const res = await server.admin.post(`${ACCESS}/escalationpathreviews`, review(spec));
    expect(res.status).toBe(201);
    return res.body.status;
  };
  const plugin = (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((done) =>
      execFile(PLUGIN, [...args, '--kubeconfig', server.kubeconfigPath], { timeout: 30000 }, (err, stdout, stderr) =>
        done({ code: err ? Number((err as { code?: unknown }).code ?? -1) : 0, stdout, stderr }),
      ),
    );
  const toAdmin = (subject: object, maxSteps?: number) => paths({ subject, target: { clusterAdmin: true }, ...(maxSteps ? { maxSteps } : {}) });
  /** What cluster-admin can do and others cannot: list Secrets everywhere and delete a namespace. */
  const isClusterAdmin = async (opts: object) => (await server.anonymous.get('/api/v1/secrets', opts)).status === 200 && (await server.anonymous.get(`${RBAC}/clusterroles`, opts)).status === 200;

  beforeAll(async () => {
    server = await startTestServer();
    for (const ns of ['ops', 'ci']) await created('/api/v1/namespaces', { metadata: { name: ns } });
    await created('/api/v1/namespaces/ops/serviceaccounts', { metadata: { name: 'admin-sa' } });
    await created('/api/v1/namespaces/ci/serviceaccounts', { metadata: { name: 'builder' } });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'root' }, roleRef: roleRef('cluster-admin'), subjects: [user('root-user'), sa('ops', 'admin-sa')] });
    const role = async (name: string, rules: object[]) => created(`${RBAC}/clusterroles`, { metadata: { name }, rules });
    const bind = async (name: string, role: string, subjects: object[], namespace?: string) =>
      created(namespace ? `${RBAC}/namespaces/${namespace}/rolebindings` : `${RBAC}/clusterrolebindings`, { metadata: { name }, roleRef: roleRef(role), subjects });
    await role('impersonate-root', [{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['root-user'] }]);
    await bind('ian', 'impersonate-root', [user('ian')]);
    await role('mint-tokens', [{ apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] }]);
    await bind('kay', 'mint-tokens', [user('kay')], 'ops');
    await bind('builder-mints', 'mint-tokens', [sa('ci', 'builder')], 'ops');
    await role('impersonate-builder', [{ apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'], resourceNames: ['builder'] }]);
    await bind('lee', 'impersonate-builder', [user('lee')], 'ci');
    await role('binder', [
      { apiGroups: [RBAC_GROUP], resources: ['clusterrolebindings'], verbs: ['create'] },
      { apiGroups: [RBAC_GROUP], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['cluster-admin'] },
    ]);
    await bind('mo', 'binder', [user('mo')]);
    await role('pod-creator', [{ apiGroups: [''], resources: ['pods'], verbs: ['create'] }]);
    await bind('jay', 'pod-creator', [user('jay')], 'ops');
    await role('only-bindings', [{ apiGroups: [RBAC_GROUP], resources: ['clusterrolebindings'], verbs: ['create'] }]);
    await bind('nora', 'only-bindings', [user('nora')]);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('impersonation: found, and impersonating reaches cluster-admin', async () => {
    const status = await toAdmin({ user: 'ian' });
    expect(status).toMatchObject({ reachable: true, incomplete: false });
    expect(status.paths[0].steps).toEqual([
      {
        capability: 'impersonate',
        actor: 'ian',
        uses: [
          {
            permission: { verb: 'impersonate', group: '', resource: 'users', name: 'root-user' },
            grantedBy: { authorizer: { type: 'RBAC', name: 'rbac' }, binding: { kind: 'ClusterRoleBinding', name: 'ian' }, role: { kind: 'ClusterRole', name: 'impersonate-root' } },
          },
        ],
        yields: { user: 'root-user', groups: ['system:authenticated'] },
      },
    ]);
    expect(await isClusterAdmin(as('ian'))).toBe(false);
    expect(await isClusterAdmin({ ...as('ian'), headers: { 'Impersonate-User': 'root-user' } })).toBe(true);
  });

  it('token minting, one hop and two (impersonate a service account that mints), each walked for real', async () => {
    const kay = await toAdmin({ user: 'kay' });
    expect(kay.paths[0].steps.map((s: any) => [s.capability, s.yields.user])).toEqual([['create-token', 'system:serviceaccount:ops:admin-sa']]);
    const minted = await server.anonymous.post('/api/v1/namespaces/ops/serviceaccounts/admin-sa/token', TOKEN_REQUEST, as('kay'));
    expect(minted.status).toBe(201);
    expect(await isClusterAdmin({ as: { token: minted.body.status.token } })).toBe(true);

    const lee = await toAdmin({ user: 'lee' });
    expect(lee.paths[0].steps.map((s: any) => [s.capability, s.actor, s.yields.user])).toEqual([
      ['impersonate', 'lee', 'system:serviceaccount:ci:builder'],
      ['create-token', 'system:serviceaccount:ci:builder', 'system:serviceaccount:ops:admin-sa'],
    ]);
    expect((await server.anonymous.post('/api/v1/namespaces/ops/serviceaccounts/admin-sa/token', TOKEN_REQUEST, as('lee'))).status).toBe(403);
    const viaBuilder = await server.anonymous.post('/api/v1/namespaces/ops/serviceaccounts/admin-sa/token', TOKEN_REQUEST, {
      ...as('lee'),
      headers: { 'Impersonate-User': 'system:serviceaccount:ci:builder' },
    });
    expect(viaBuilder.status).toBe(201);
    expect(await isClusterAdmin({ as: { token: viaBuilder.body.status.token } })).toBe(true);
    // With one step allowed the two-step path is beyond the bound.
    expect(await toAdmin({ user: 'lee' }, 1)).toEqual({ reachable: false, paths: [], incomplete: true });
  });

  it('bind: found within escalation prevention, and binding reaches cluster-admin; create without bind is no path', async () => {
    const mo = await toAdmin({ user: 'mo' });
    expect(mo.paths[0].steps.map((s: any) => [s.capability, s.yields.clusterRole])).toEqual([['bind', 'cluster-admin']]);
    await server.anonymous.post(`${RBAC}/clusterrolebindings`, { metadata: { name: 'mo-root' }, roleRef: roleRef('cluster-admin'), subjects: [user('mo')] }, as('mo'));
    expect(await isClusterAdmin(as('mo'))).toBe(true);
    expect((await server.admin.delete(`${RBAC}/clusterrolebindings/mo-root`)).status).toBe(200);

    expect(await toAdmin({ user: 'nora' })).toMatchObject({ reachable: false, paths: [] });
    const attempt = await server.anonymous.post(`${RBAC}/clusterrolebindings`, { metadata: { name: 'nora-root' }, roleRef: roleRef('cluster-admin'), subjects: [user('nora')] }, as('nora'));
    expect(attempt.status).toBe(403);
  });

  it('update: adding oneself to a binding of cluster-admin (with bind), or the target to one\'s own role (with escalate), each walked for real; without bind or escalate, no path and no write', async () => {
    const updateRoot = { apiGroups: [RBAC_GROUP], resources: ['clusterrolebindings'], verbs: ['get', 'update'], resourceNames: ['root'] };
    const bindAdmin = { apiGroups: [RBAC_GROUP], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['cluster-admin'] };
    await created(`${RBAC}/clusterroles`, { metadata: { name: 'root-editor' }, rules: [updateRoot, bindAdmin] });
    await created(`${RBAC}/clusterroles`, { metadata: { name: 'root-editor-no-bind' }, rules: [updateRoot] });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'una' }, roleRef: roleRef('root-editor'), subjects: [user('una')] });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'uno' }, roleRef: roleRef('root-editor-no-bind'), subjects: [user('uno')] });
    const ownRole = (name: string, verbs: string[]) => ({ metadata: { name }, rules: [{ apiGroups: [RBAC_GROUP], resources: ['clusterroles'], verbs, resourceNames: [name] }] });
    await created(`${RBAC}/clusterroles`, ownRole('eve-role', ['get', 'update', 'escalate']));
    await created(`${RBAC}/clusterroles`, ownRole('ezra-role', ['get', 'update']));
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'eve' }, roleRef: roleRef('eve-role'), subjects: [user('eve')] });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'ezra' }, roleRef: roleRef('ezra-role'), subjects: [user('ezra')] });

    const una = await toAdmin({ user: 'una' });
    expect(una.paths[0].steps.map((s: any) => [s.capability, s.uses.map((u: any) => `${u.permission.verb} ${u.permission.resource}/${u.permission.name}`), s.yields.clusterRole])).toEqual([
      ['bind', ['update clusterrolebindings/root', 'bind clusterroles/cluster-admin'], 'cluster-admin'],
    ]);
    const eve = await toAdmin({ user: 'eve' });
    expect(eve.paths[0].steps.map((s: any) => [s.capability, s.yields.clusterRole])).toEqual([['escalate', 'eve-role']]);
    expect(await toAdmin({ user: 'uno' })).toEqual({ reachable: false, paths: [], incomplete: false });
    expect(await toAdmin({ user: 'ezra' })).toEqual({ reachable: false, paths: [], incomplete: false });

    const addSubject = async (who: string) => {
      const root = (await server.anonymous.get(`${RBAC}/clusterrolebindings/root`, as(who))).body;
      return server.anonymous.put(`${RBAC}/clusterrolebindings/root`, { ...root, subjects: [...root.subjects, user(who)] }, as(who));
    };
    expect((await addSubject('uno')).status).toBe(403);
    expect((await addSubject('una')).status).toBe(200);
    expect(await isClusterAdmin(as('una'))).toBe(true);
    const everything = (name: string) => async () => {
      const role = (await server.anonymous.get(`${RBAC}/clusterroles/${name}`, as(name.replace('-role', '')))).body;
      return server.anonymous.put(`${RBAC}/clusterroles/${name}`, { ...role, rules: [...role.rules, { apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] }, as(name.replace('-role', '')));
    };
    expect((await everything('ezra-role')()).status).toBe(403);
    expect((await everything('eve-role')()).status).toBe(200);
    expect(await isClusterAdmin(as('eve'))).toBe(true);

    // Back as it was: root names its own subjects only, eve-role its own rule.
    const root = (await server.admin.get(`${RBAC}/clusterrolebindings/root`)).body;
    expect((await server.admin.put(`${RBAC}/clusterrolebindings/root`, { ...root, subjects: root.subjects.filter((s: any) => s.name !== 'una') })).status).toBe(200);
    expect((await server.admin.delete(`${RBAC}/clusterrolebindings/eve`)).status).toBe(200);
  });

  it('pod creation in a namespace with a powerful service account', async () => {
    const jay = await toAdmin({ user: 'jay' });
    expect(jay.paths[0].steps.map((s: any) => [s.capability, s.yields.user])).toEqual([['create-pod', 'system:serviceaccount:ops:admin-sa']]);
    const pod = await server.anonymous.post(
      '/api/v1/namespaces/ops/pods',
      { metadata: { name: 'runner' }, spec: { serviceAccountName: 'admin-sa', containers: [{ name: 'c', image: 'busybox' }] } },
      as('jay'),
    );
    expect(pod.status).toBe(201);
  });

  it('a subject holding the target has an empty path; one with no capability has none', async () => {
    expect(await toAdmin({ user: 'root-user' })).toEqual({ reachable: true, paths: [{ subject: 'root-user', steps: [] }], incomplete: false });
    expect(await toAdmin({ serviceAccount: { namespace: 'ops', name: 'admin-sa' } })).toMatchObject({ reachable: true, paths: [{ steps: [] }] });
    expect(await toAdmin({ user: 'nobody' })).toEqual({ reachable: false, paths: [], incomplete: false });
    expect(await isClusterAdmin(as('nobody'))).toBe(false);
  });

  it('answers for a permission short of cluster-admin, and lists every subject with a path', async () => {
    const secrets = await paths({ subject: { user: 'kay' }, target: { verb: 'get', resource: 'secrets', namespace: 'ops' } });
    expect(secrets.reachable).toBe(true);
    const all = await paths({ target: { clusterAdmin: true } });
    const subjects = all.paths.map((p: any) => p.subject);
    expect(subjects).toEqual(expect.arrayContaining(['ian', 'jay', 'kay', 'lee', 'mo', 'system:serviceaccount:ci:builder']));
    expect(subjects).not.toContain('root-user');
    expect(subjects).not.toContain('nora');
  });

  it('lists each subject with a path to cluster-admin (not holding it) as a PathToClusterAdmin finding about the binding of its first step', async () => {
    const findings = async (selector: string) => {
      const res = await server.admin.get(`${ACCESS}/accessfindings?fieldSelector=${encodeURIComponent(selector)}`);
      expect(res.status).toBe(200);
      return res.body.items;
    };
    const all = await findings('type=PathToClusterAdmin');
    const subjects = all.map((f: any) => `${f.subject.kind}/${f.subject.namespace ?? ''}/${f.subject.name}`);
    expect(subjects).toEqual(expect.arrayContaining(['User//ian', 'User//jay', 'User//kay', 'User//lee', 'User//mo', 'ServiceAccount/ci/builder']));
    // Holding cluster-admin is not a path; neither is create without bind; nor the default policy's own subjects.
    expect(subjects).not.toContain('User//root-user');
    expect(subjects).not.toContain('User//nora');
    expect(all.every((f: any) => !f.subject.name.startsWith('system:'))).toBe(true);

    const [lee] = await findings('type=PathToClusterAdmin,subject.name=lee');
    expect(lee).toMatchObject({
      type: 'PathToClusterAdmin',
      bindingRef: { kind: 'RoleBinding', namespace: 'ci', name: 'lee' },
      roleRef: { kind: 'ClusterRole', name: 'impersonate-builder' },
      subject: { kind: 'User', apiGroup: RBAC_GROUP, name: 'lee' },
      escalationPath: 'lee --impersonate--> system:serviceaccount:ci:builder --create-token--> system:serviceaccount:ops:admin-sa',
      suggestedFix: {
        description: 'Remove the subject from RoleBinding ci/lee, or narrow ClusterRole impersonate-builder so that it no longer grants impersonate serviceaccounts builder in ci.',
        command: 'kubectl delete rolebinding -n ci lee',
      },
    });
    expect(lee.message).toContain('lee can reach cluster-admin in 2 steps');
    const listed = await plugin('findings', '--type', 'PathToClusterAdmin', 'lee');
    expect(listed.stdout).toContain('kubectl delete rolebinding -n ci lee');
    // By the namespace of the binding, and by subject kind.
    expect((await findings('type=PathToClusterAdmin,bindingRef.namespace=ops')).map((f: any) => f.subject.name).sort()).toEqual(['builder', 'jay', 'kay']);
    expect((await findings('type=PathToClusterAdmin,subject.kind=ServiceAccount')).map((f: any) => f.subject.name)).toEqual(['builder']);
    const got = await server.admin.get(`${ACCESS}/accessfindings/${lee.metadata.name}`);
    expect(got.body).toMatchObject({ kind: 'AccessFinding', type: 'PathToClusterAdmin', subject: { name: 'lee' } });
    const table = await server.admin.get(`${ACCESS}/accessfindings?fieldSelector=type%3DPathToClusterAdmin,subject.name%3Dmo`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(table.body.rows.map((r: any) => r.cells.slice(0, 3))).toEqual([['PathToClusterAdmin', 'ClusterRoleBinding/mo', 'User/mo']]);
  });

  it.each([
    ['no target', { subject: { user: 'a' } }, 'spec.target'],
    ['clusterAdmin with a permission', { target: { clusterAdmin: true, verb: 'get' } }, 'spec.target'],
    ['a permission without a resource', { target: { verb: 'get' } }, 'spec.target.resource'],
    ['user and service account', { subject: { user: 'a', serviceAccount: { namespace: 'x', name: 'y' } }, target: { clusterAdmin: true } }, 'spec.subject'],
    ['a service account without namespace', { subject: { serviceAccount: { name: 'y' } }, target: { clusterAdmin: true } }, 'spec.subject.serviceAccount.namespace'],
    ['too many steps', { subject: { user: 'a' }, target: { clusterAdmin: true }, maxSteps: 9 }, 'spec.maxSteps'],
  ])('refuses %s with 422', async (_what, spec, field) => {
    const res = await server.admin.post(`${ACCESS}/escalationpathreviews`, review(spec));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'Invalid' });
    expect(res.body.details.causes.map((c: any) => c.field)).toContain(field);
  });

  describe('kubectl access paths', () => {

    it('prints each step of the shortest path, with the binding that grants it', async () => {
      const res = await plugin('paths', 'lee', '--to', 'cluster-admin');
      expect(res).toMatchObject({ code: 0, stderr: '' });
      expect(res.stdout).toBe(
        [
          'PATH 1: lee → cluster-admin in 2 steps',
          '  1. lee --impersonate--> system:serviceaccount:ci:builder',
          '       using impersonate serviceaccounts -n ci builder (RoleBinding ci/lee → ClusterRole impersonate-builder)',
          '  2. system:serviceaccount:ci:builder --create-token--> system:serviceaccount:ops:admin-sa',
          '       using create serviceaccounts/token -n ops admin-sa (RoleBinding ops/builder-mints → ClusterRole mint-tokens)',
          '',
        ].join('\n'),
      );
    });

    it('asks about a permission, lists every subject with --all, prints the object with -o, and says when there is none', async () => {
      expect((await plugin('paths', 'kay', 'get', 'secrets', '-n', 'ops')).stdout).toContain('PATH 1: kay → get secrets in ops in 1 step');
      const all = await plugin('paths', '--all', '--to', 'cluster-admin');
      expect(all.code).toBe(0);
      for (const who of ['ian', 'jay', 'kay', 'lee', 'mo']) expect(all.stdout).toContain(`: ${who} → cluster-admin`);
      const json = JSON.parse((await plugin('paths', 'ian', '-o', 'json')).stdout);
      expect(json).toMatchObject({ kind: 'EscalationPathReview', status: { reachable: true } });
      expect((await plugin('paths', 'nobody')).stdout).toBe('No path from nobody to cluster-admin.\n');
      expect((await plugin('paths', 'root-user')).stdout).toBe('root-user holds cluster-admin already.\n');
    });

    it.each([
      [['paths'], 'error: paths takes a SUBJECT (or --all)'],
      [['paths', 'ian', '--to', 'root'], 'error: --to takes cluster-admin, not "root" (or give VERB RESOURCE)'],
      [['paths', 'ian', 'get'], 'error: paths takes SUBJECT [VERB RESOURCE [NAME]]'],
      [['paths', 'ian', '--max-steps', 'many'], 'error: --max-steps must be a number, not "many"'],
      [['paths', 'ian', '--max-steps', '9'], 'error: .access.platform.io "" is invalid: spec.maxSteps: Invalid value: 9: must be between 1 and 6'],
    ])('%j: one error line, exit 1', async (args, message) => {
      const res = await plugin(...args);
      expect(res).toEqual({ code: 1, stdout: '', stderr: `${message}\n` });
    });
  });

  it('constrained impersonation: a step usable for the actions impersonate-on allows, walked for real; without impersonate-on for the write, no path and no write', async () => {
    await created('/api/v1/namespaces/ops/serviceaccounts', { metadata: { name: 'deployer' } });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'deployer-binds' }, roleRef: roleRef('binder'), subjects: [sa('ops', 'deployer')] });
    const impersonateDeployer = { apiGroups: ['authentication.platform.io'], resources: ['serviceaccounts'], verbs: ['impersonate:serviceaccount'], resourceNames: ['deployer'] };
    await created(`${RBAC}/clusterroles`, {
      metadata: { name: 'deploy-as' },
      rules: [impersonateDeployer, { apiGroups: [RBAC_GROUP], resources: ['clusterrolebindings'], verbs: ['impersonate-on:serviceaccount:create'] }],
    });
    await created(`${RBAC}/clusterroles`, {
      metadata: { name: 'read-as' },
      rules: [impersonateDeployer, { apiGroups: [RBAC_GROUP], resources: ['clusterrolebindings'], verbs: ['impersonate-on:serviceaccount:get', 'impersonate-on:serviceaccount:list'] }],
    });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'cia' }, roleRef: roleRef('deploy-as'), subjects: [user('cia')] });
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'cib' }, roleRef: roleRef('read-as'), subjects: [user('cib')] });

    const cia = await toAdmin({ user: 'cia' });
    expect(cia).toMatchObject({ reachable: true, incomplete: false });
    const [impersonation, bind] = cia.paths[0].steps;
    expect(impersonation).toMatchObject({
      capability: 'constrained-impersonate',
      actor: 'cia',
      uses: [{ permission: { verb: 'impersonate:serviceaccount', group: 'authentication.platform.io', resource: 'serviceaccounts', namespace: 'ops', name: 'deployer' } }],
      yields: { user: 'system:serviceaccount:ops:deployer', impersonationMode: 'serviceaccount' },
    });
    // The write itself needs impersonate-on; bind is escalation prevention's check of the impersonated account.
    expect(bind).toMatchObject({ capability: 'bind', actor: 'system:serviceaccount:ops:deployer (impersonated by cia)', yields: { clusterRole: 'cluster-admin' } });
    expect(bind.uses.map((u: any) => [u.permission.verb, u.permission.resource, u.grantedBy.binding?.name])).toEqual([
      ['create', 'clusterrolebindings', 'deployer-binds'],
      ['impersonate-on:serviceaccount:create', 'clusterrolebindings', 'cia'],
      ['bind', 'clusterroles', 'deployer-binds'],
    ]);
    const all = (await paths({ target: { clusterAdmin: true } })).paths.map((p: any) => p.subject);
    expect(all).toContain('cia');
    const printed = await plugin('paths', 'cia');
    expect(printed.stdout).toContain('1. cia --constrained-impersonate--> system:serviceaccount:ops:deployer (serviceaccount mode: only where impersonate-on allows)');
    expect(printed.stdout).toContain('using create clusterrolebindings.rbac.authorization.platform.io (ClusterRoleBinding deployer-binds → ClusterRole binder), impersonate-on:serviceaccount:create clusterrolebindings.rbac.authorization.platform.io (ClusterRoleBinding cia → ClusterRole deploy-as)');
    expect(all).not.toContain('cib');

    // Walk it: as cia, impersonating the deployer, bind cia to cluster-admin.
    const binding = (name: string, who: string) => ({ metadata: { name }, roleRef: roleRef('cluster-admin'), subjects: [user(who)] });
    const deployer = { 'Impersonate-User': 'system:serviceaccount:ops:deployer' };
    expect(await isClusterAdmin(as('cia'))).toBe(false);
    expect((await server.anonymous.post(`${RBAC}/clusterrolebindings`, binding('cia-root', 'cia'), { ...as('cia'), headers: deployer })).status).toBe(201);
    expect(await isClusterAdmin(as('cia'))).toBe(true);
    expect((await server.admin.delete(`${RBAC}/clusterrolebindings/cia-root`)).status).toBe(200);

    // cib may impersonate the deployer only to read bindings: no path, and the same write is refused.
    expect(await toAdmin({ user: 'cib' })).toEqual({ reachable: false, paths: [], incomplete: false });
    const refused = await server.anonymous.post(`${RBAC}/clusterrolebindings`, binding('cib-root', 'cib'), { ...as('cib'), headers: deployer });
    expect(refused.status).toBe(403);
    expect(await isClusterAdmin(as('cib'))).toBe(false);
  });

  it('needs create on escalationpathreviews, which the default access-reviewer role has', async () => {
    const res = await server.anonymous.post(`${ACCESS}/escalationpathreviews`, review({ target: { clusterAdmin: true } }), as('nobody'));
    expect(res.status).toBe(403);
    await created(`${RBAC}/clusterrolebindings`, { metadata: { name: 'reviewer' }, roleRef: roleRef('access-reviewer'), subjects: [user('reviewer')] });
    const allowed = await server.anonymous.post(`${ACCESS}/escalationpathreviews`, review({ subject: { user: 'ian' }, target: { clusterAdmin: true } }), as('reviewer'));
    expect(allowed.status).toBe(201);
    expect((await server.anonymous.get(`${ACCESS}/accessguardrails`, as('reviewer'))).status).toBe(200);
  });
});
