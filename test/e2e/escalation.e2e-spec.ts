import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../support/eventually';
import { ClientIdentity, HttpResponse } from '../support/https-client';
import { startTestServer, TestServer } from '../support/test-server';
import { writeTokenFile } from '../support/token-file';

/**
 * Escalation prevention through the real server: every write path of roles and bindings,
 * in dry run too, with token users, under RBAC authorization and under AlwaysAllow (where
 * the prevention holds all the same).
 */
const GROUP = 'rbac.authorization.platform.io';
const API = `/apis/${GROUP}/v1`;
const NS = 'team';
const ALICE_GROUPS = '(groups=["devs" "system:authenticated"])';

const ALICE: ClientIdentity = { token: 'alice-token' }; // holds what she grants, nothing more
const ERIN: ClientIdentity = { token: 'erin-token' }; // may escalate roles in the namespace
const BOB: ClientIdentity = { token: 'bob-token' }; // may bind the secret-reader ClusterRole in the namespace

function tokenFile(dir: string): string {
  return writeTokenFile(dir, ['alice-token,alice,uid-alice,"devs"', 'erin-token,erin,uid-erin', 'bob-token,bob,uid-bob']);
}

type Rule = { apiGroups?: string[]; resources?: string[]; verbs: string[]; resourceNames?: string[]; nonResourceURLs?: string[] };
const rule = (verbs: string[], resources: string[], apiGroups = ['']): Rule => ({ apiGroups, resources, verbs });
const userSubject = (name: string) => ({ kind: 'User', apiGroup: GROUP, name });

const POD_READER = [rule(['get', 'list'], ['pods'])];
const TOO_MUCH = [rule(['get', 'list', 'delete'], ['pods']), rule(['get'], ['secrets'])];

/** The write paths: each creates or changes an object so that it grants `body`'s permissions. */
type Path = 'POST' | 'PUT' | 'merge patch' | 'strategic patch' | 'apply';
const PATHS: Path[] = ['POST', 'PUT', 'merge patch', 'strategic patch', 'apply'];
/** Paths that change an object the admin created first (with nothing granted). */
const UPDATES: ReadonlySet<Path> = new Set(['PUT', 'merge patch', 'strategic patch']);

interface Kind {
  plural: 'roles' | 'rolebindings';
  kind: 'Role' | 'RoleBinding';
  /** The fields that grant (rules, or roleRef and subjects), and their empty form. */
  granting(spec: RoleSpec | BindingSpec): Record<string, unknown>;
  empty(spec: RoleSpec | BindingSpec): Record<string, unknown>;
}
interface RoleSpec {
  rules: Rule[];
}
interface BindingSpec {
  roleRef: { apiGroup: string; kind: string; name: string };
}

const ROLE: Kind = {
  plural: 'roles',
  kind: 'Role',
  granting: (spec) => ({ rules: (spec as RoleSpec).rules }),
  empty: () => ({ rules: [] }),
};
const BINDING: Kind = {
  plural: 'rolebindings',
  kind: 'RoleBinding',
  granting: (spec) => ({ roleRef: (spec as BindingSpec).roleRef, subjects: [userSubject('carol')] }),
  empty: (spec) => ({ roleRef: (spec as BindingSpec).roleRef, subjects: [] }),
};

interface Case {
  title: string;
  as: ClientIdentity;
  kind: Kind;
  spec: RoleSpec | BindingSpec;
  /** Allowed, or the list of missing permissions the 403 must name (exactly). */
  missing?: string[];
  /** The refused user, as the 403 message names them. */
  who?: string;
}

const clusterRoleRef = (name: string) => ({ apiGroup: GROUP, kind: 'ClusterRole', name });

const CASES: Case[] = [
  { title: 'a role the caller holds', as: ALICE, kind: ROLE, spec: { rules: POD_READER } },
  {
    title: 'a role beyond the caller\'s permissions',
    as: ALICE,
    kind: ROLE,
    spec: { rules: TOO_MUCH },
    who: `user "alice" ${ALICE_GROUPS}`,
    missing: ['{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}', '{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}'],
  },
  { title: 'any role with escalate', as: ERIN, kind: ROLE, spec: { rules: TOO_MUCH } },
  { title: 'a binding of a role the caller holds', as: ALICE, kind: BINDING, spec: { roleRef: clusterRoleRef('pod-reader') } },
  { title: 'a binding with bind on that role', as: BOB, kind: BINDING, spec: { roleRef: clusterRoleRef('secret-reader') } },
  {
    title: 'a binding of another role than bind names',
    as: BOB,
    kind: BINDING,
    spec: { roleRef: clusterRoleRef('secret-writer') },
    who: 'user "bob" (groups=["system:authenticated"])',
    missing: ['{APIGroups:[""], Resources:["secrets"], Verbs:["create" "update"]}'],
  },
];

/** Every case on every path, with and without dryRun=All. */
const TABLE = CASES.flatMap((c) => PATHS.flatMap((path) => [false, true].map((dryRun) => ({ ...c, path, dryRun }))));

let serial = 0;

for (const mode of ['RBAC', 'AlwaysAllow'] as const) {
  describe(`escalation prevention (--authorization-mode=${mode})`, () => {
    let server: TestServer;
    let dir: string;
    const collection = (kind: Kind) => `${API}/namespaces/${NS}/${kind.plural}`;
    const object = (kind: Kind, name: string) => `${collection(kind)}/${name}`;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'escalation-e2e-'));
      server = await startTestServer({ options: { authorizationModes: [mode], tokenAuthFile: tokenFile(dir) } });
      const admin = server.admin;
      const created = async (path: string, body: unknown) => expect((await admin.post(path, body)).status).toBe(201);
      await created('/api/v1/namespaces', { metadata: { name: NS } });
      const rbacWriter = [rule(['get', 'list', 'create', 'update', 'patch'], ['roles', 'rolebindings'], [GROUP])];
      const clusterRoles: Record<string, Rule[]> = {
        'rbac-writer': rbacWriter,
        'clusterrole-writer': [rule(['create'], ['clusterroles'], [GROUP])],
        'pod-reader': POD_READER,
        'secret-reader': [rule(['get'], ['secrets'])],
        'secret-writer': [rule(['create', 'update'], ['secrets'])],
        escalator: [rule(['escalate'], ['roles'], [GROUP])],
        binder: [{ apiGroups: [GROUP], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['secret-reader'] }],
      };
      for (const [name, rules] of Object.entries(clusterRoles)) await created(`${API}/clusterroles`, { metadata: { name }, rules });
      const grants: Array<[string, string, string]> = [
        ['alice', 'rbac-writer', 'alice-writes'],
        ['erin', 'rbac-writer', 'erin-writes'],
        ['bob', 'rbac-writer', 'bob-writes'],
        ['alice', 'pod-reader', 'alice-reads-pods'],
        ['erin', 'escalator', 'erin-escalates'],
        ['bob', 'binder', 'bob-binds'],
      ];
      for (const [user, role, name] of grants) {
        await created(`${API}/namespaces/${NS}/rolebindings`, { metadata: { name }, roleRef: clusterRoleRef(role), subjects: [userSubject(user)] });
      }
      await created(`${API}/clusterrolebindings`, { metadata: { name: 'erin-writes-clusterroles' }, roleRef: clusterRoleRef('clusterrole-writer'), subjects: [userSubject('erin')] });
      // The authorizer follows the policy a moment behind: wait until every user can write.
      await eventually(async () => {
        for (const as of [ALICE, ERIN, BOB]) expect((await server.anonymous.get(collection(ROLE), { as })).status).toBe(200);
      });
    });
    afterAll(async () => {
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    /** Sends the case's write over its path; objects on update paths are created empty first by the admin. */
    async function write(c: (typeof TABLE)[number], name: string): Promise<HttpResponse> {
      const client = server.anonymous;
      const query = c.dryRun ? '?dryRun=All' : '';
      const body = { apiVersion: `${GROUP}/v1`, kind: c.kind.kind, metadata: { name }, ...c.kind.granting(c.spec) };
      if (UPDATES.has(c.path)) {
        expect((await server.admin.post(collection(c.kind), { metadata: { name }, ...c.kind.empty(c.spec) })).status).toBe(201);
      }
      switch (c.path) {
        case 'POST':
          return client.post(`${collection(c.kind)}${query}`, body, { as: c.as });
        case 'PUT':
          return client.put(`${object(c.kind, name)}${query}`, body, { as: c.as });
        case 'merge patch':
          return client.patch(`${object(c.kind, name)}${query}`, c.kind.granting(c.spec), 'application/merge-patch+json', { as: c.as });
        case 'strategic patch':
          return client.patch(`${object(c.kind, name)}${query}`, c.kind.granting(c.spec), 'application/strategic-merge-patch+json', { as: c.as });
        case 'apply':
          return client.patch(`${object(c.kind, name)}${query || '?'}${query ? '&' : ''}fieldManager=e2e`, body, 'application/apply-patch+yaml', { as: c.as });
      }
    }

    it.each(TABLE)('$title: $path (dryRun $dryRun)', async (c) => {
      const name = `x${++serial}`;
      const res = await write(c, name);
      const stored = await server.admin.get(object(c.kind, name));
      if (c.missing) {
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({
          kind: 'Status',
          status: 'Failure',
          reason: 'Forbidden',
          code: 403,
          details: { name, group: GROUP, kind: c.kind.plural },
          message: `${c.kind.plural}.${GROUP} "${name}" is forbidden: ${c.who} is attempting to grant RBAC permissions not currently held:\n${c.missing.join('\n')}`,
        });
      } else {
        expect(res.status).toBe(UPDATES.has(c.path) ? 200 : 201);
        expect(res.body).toMatchObject({ kind: c.kind.kind, metadata: { name }, ...c.kind.granting(c.spec) });
      }
      // Nothing is stored by a refusal or a dry run; an allowed write is.
      const grantedStored = !c.missing && !c.dryRun;
      if (UPDATES.has(c.path)) {
        expect(stored.status).toBe(200);
        expect(stored.body).toMatchObject(grantedStored ? c.kind.granting(c.spec) : c.kind.empty(c.spec));
      } else {
        expect(stored.status).toBe(grantedStored ? 200 : 404);
      }
    });

    it('answers 404 for a binding of a role that does not exist, unless the caller may bind it', async () => {
      const res = await server.anonymous.post(
        collection(BINDING),
        { metadata: { name: 'dangling' }, roleRef: { apiGroup: GROUP, kind: 'Role', name: 'nope' }, subjects: [userSubject('carol')] },
        { as: ALICE },
      );
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ reason: 'NotFound', message: `roles.${GROUP} "nope" not found`, details: { name: 'nope', kind: 'roles' } });
      await server.admin.delete(`${API}/clusterroles/secret-reader`);
      const bound = await server.anonymous.post(
        collection(BINDING),
        { metadata: { name: 'early' }, roleRef: clusterRoleRef('secret-reader'), subjects: [userSubject('carol')] },
        { as: BOB },
      );
      expect(bound.status).toBe(201);
      expect((await server.admin.post(`${API}/clusterroles`, { metadata: { name: 'secret-reader' }, rules: [rule(['get'], ['secrets'])] })).status).toBe(201);
    });

    it('takes a grant made just before the write into account', async () => {
      const rules = [rule(['get'], ['configmaps'])];
      expect((await server.admin.post(`${API}/clusterroles`, { metadata: { name: 'cm-reader' }, rules })).status).toBe(201);
      expect(
        (await server.admin.post(collection(BINDING), { metadata: { name: 'alice-reads-cms' }, roleRef: clusterRoleRef('cm-reader'), subjects: [userSubject('alice')] }))
          .status,
      ).toBe(201);
      const res = await server.anonymous.post(collection(ROLE), { metadata: { name: 'cm-role' }, rules }, { as: ALICE });
      expect(res.status).toBe(201);
    });

    it('requires every permission to set an aggregationRule, and lets the aggregation controller fill it', async () => {
      const aggregated = {
        metadata: { name: `aggregate-${mode.toLowerCase()}` },
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [`e2e.platform.io/aggregate-${mode.toLowerCase()}`]: 'true' } }] },
      };
      // erin may create ClusterRoles (and escalate Roles), but does not hold everything.
      const refused = await server.anonymous.post(`${API}/clusterroles`, aggregated, { as: ERIN });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe(
        `clusterroles.${GROUP} "${aggregated.metadata.name}" is forbidden: must have cluster-admin privileges to use the aggregationRule`,
      );

      expect((await server.admin.post(`${API}/clusterroles`, aggregated)).status).toBe(201);
      const member = {
        metadata: { name: `member-${mode.toLowerCase()}`, labels: { [`e2e.platform.io/aggregate-${mode.toLowerCase()}`]: 'true' } },
        rules: [rule(['get'], ['nodes'])],
      };
      expect((await server.admin.post(`${API}/clusterroles`, member)).status).toBe(201);
      await eventually(async () => {
        const res = await server.admin.get(`${API}/clusterroles/${aggregated.metadata.name}`);
        expect(res.body.rules).toEqual(member.rules);
      });
    });

    it('lets system:masters grant anything', async () => {
      const res = await server.admin.post(`${API}/clusterroles`, { metadata: { name: 'everything' }, rules: [rule(['*'], ['*'], ['*']), { verbs: ['*'], nonResourceURLs: ['*'] }] });
      expect(res.status).toBe(201);
    });

    if (mode === 'AlwaysAllow') {
      it('answers a write into a namespace that does not exist with 404 before judging escalation', async () => {
        const res = await server.anonymous.post(`${API}/namespaces/ghost/roles`, { metadata: { name: 'x' }, rules: TOO_MUCH }, { as: ALICE });
        expect(res.status).toBe(404);
        expect(res.body.message).toBe('namespaces "ghost" not found');
      });
    }
  });
}
