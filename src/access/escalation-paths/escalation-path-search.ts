import { ALL_AUTHENTICATED, UserInfo } from '../../apimachinery/user-info';
import { Pod } from '../../core/kinds/pod';
import { Secret, SECRET_TYPE_SERVICE_ACCOUNT_TOKEN, SERVICE_ACCOUNT_NAME_ANNOTATION } from '../../core/kinds/secret';
import { AuthorizationAttributes } from '../../authorization/authorizer';
import { AuthorizerAnswer, AuthorizerChain } from '../../authorization/authorizer-chain';
import { PolicyIndex } from '../../authorization/rbac/policy-index';
import { ruleAllows, rulesAllow } from '../../authorization/rbac/rule-matching';
import { serviceAccountUsername } from '../../authorization/rbac/subjects';
import { resourceAttributes } from '../../authorization/request-attributes';
import { GROUP_KIND, RoleBinding, SERVICE_ACCOUNT_KIND, USER_KIND } from '../../apis/rbac/types';
import { Capability, EscalationPath, PathStep, StepGrant, StepPermission } from './escalation-path-types';

/**
 * A breadth-first search over identities: from the subject, every capability the live policy
 * and the authorizer chain grant it that yields another identity (impersonation, running a
 * pod as a service account, minting its token, reading its token Secret, proxying to a node
 * and so exec-ing into its pods) or a role (bind, escalate). Every permission is asked of the
 * chain itself (guardrails, Node, RBAC, webhooks), traced so that nothing is counted as a
 * grant. Shortest paths come first; the first identity that reaches the target ends its branch.
 */

export interface SearchLimits {
  maxSteps: number;
  /** Authorizer decisions asked at most per question (all subjects together): bounds its time on any policy. */
  maxDecisions: number;
  /** Identities expanded at most. */
  maxIdentities: number;
  maxPaths: number;
}

export interface SearchWorld {
  chain: AuthorizerChain;
  policy: PolicyIndex;
  secrets: () => readonly Secret[];
  pods: () => readonly Pod[];
  /** When the question arrived (decisions reflect the store as of then). */
  arrivedAt?: number;
}

interface Identity {
  key: string;
  user: UserInfo;
}

interface ServiceAccountRef {
  namespace: string;
  name: string;
}

const RBAC = 'rbac.authorization.platform.io';
const SA_PREFIX = 'system:serviceaccount:';

export function serviceAccountIdentity(namespace: string, name: string): UserInfo {
  return { username: serviceAccountUsername(namespace, name), groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, ALL_AUTHENTICATED] };
}

const identityKey = (user: UserInfo) => `${user.username}\u0000${[...user.groups].sort().join(',')}`;
const identity = (user: UserInfo): Identity => ({ key: identityKey(user), user });

function permissionAttrs(user: UserInfo, p: StepPermission): AuthorizationAttributes {
  return resourceAttributes({ user, verb: p.verb, apiGroup: p.group, apiVersion: '*', resource: p.resource, subresource: p.subresource, namespace: p.namespace, name: p.name });
}

/** The candidates the policy and the store offer: who is bound to anything, who pods run as, whose tokens are stored. */
class Candidates {
  readonly users = new Set<string>();
  readonly groups = new Set<string>();
  readonly serviceAccounts = new Map<string, ServiceAccountRef>();
  /** Token Secrets by service account key. */
  readonly tokenSecrets = new Map<string, Secret[]>();
  /** Service accounts of pods placed on a node. */
  readonly scheduledServiceAccounts = new Map<string, ServiceAccountRef>();
  /** Nodes pods run on: identities the Node authorizer answers for. */
  readonly nodes = new Set<string>();

  constructor(world: SearchWorld) {
    for (const kind of ['ClusterRoleBinding', 'RoleBinding'] as const) {
      for (const b of world.policy.objectsOf(kind) as RoleBinding[]) {
        for (const s of Array.isArray(b.subjects) ? b.subjects : []) {
          if (s.kind === USER_KIND && !s.name.startsWith(SA_PREFIX)) this.users.add(s.name);
          else if (s.kind === GROUP_KIND) this.groups.add(s.name);
          else if (s.kind === SERVICE_ACCOUNT_KIND) this.addServiceAccount(s.namespace || b.metadata?.namespace || '', s.name);
          if (s.kind === USER_KIND && s.name.startsWith(SA_PREFIX)) {
            const [namespace, name] = s.name.slice(SA_PREFIX.length).split(':');
            if (namespace && name) this.addServiceAccount(namespace, name);
          }
        }
      }
    }
    for (const secret of world.secrets()) {
      const name = secret.metadata?.annotations?.[SERVICE_ACCOUNT_NAME_ANNOTATION];
      if (secret.type !== SECRET_TYPE_SERVICE_ACCOUNT_TOKEN || !name) continue;
      const sa = this.addServiceAccount(secret.metadata.namespace ?? '', name);
      const key = `${sa.namespace}/${sa.name}`;
      this.tokenSecrets.set(key, [...(this.tokenSecrets.get(key) ?? []), secret]);
    }
    for (const pod of world.pods()) {
      const namespace = pod.metadata?.namespace ?? '';
      const name = (pod.spec?.serviceAccountName as string | undefined) || 'default';
      if (!pod.spec?.nodeName) continue;
      this.scheduledServiceAccounts.set(`${namespace}/${name}`, this.addServiceAccount(namespace, name));
      // The Node authorizer grants a node its pods' service account tokens.
      this.nodes.add(String(pod.spec.nodeName));
    }
  }

  private addServiceAccount(namespace: string, name: string): ServiceAccountRef {
    const key = `${namespace}/${name}`;
    let sa = this.serviceAccounts.get(key);
    if (!sa && namespace && name) this.serviceAccounts.set(key, (sa = { namespace, name }));
    return sa ?? { namespace, name };
  }
}

interface Frontier {
  at: Identity;
  steps: PathStep[];
}

export class EscalationPathSearch {
  private readonly candidates: Candidates;
  /** The ClusterRoles that grant the target (bind or escalate into them reaches it). */
  private readonly powerfulRoles: string[];
  private readonly answers = new Map<string, StepGrant | null>();
  private decisions = 0;
  /** The decision budget ran out: what was not asked counts as not granted, and answers say incomplete. */
  exhausted = false;

  constructor(
    private readonly world: SearchWorld,
    private readonly target: StepPermission,
    private readonly limits: SearchLimits,
  ) {
    this.candidates = new Candidates(world);
    const targetAttrs = permissionAttrs({ username: '', groups: [] }, target);
    this.powerfulRoles = (world.policy.objectsOf('ClusterRole') as Array<{ metadata: { name?: string }; rules?: [] }>)
      .filter((role) => rulesAllow(role.rules ?? [], targetAttrs))
      .map((role) => role.metadata.name ?? '')
      .sort();
  }

  /**
   * The shortest paths from `start` to the target (every one of the shortest length, up to
   * maxPaths); `incomplete` when a bound cut the search. Each level is first checked for the
   * target (and a final bind), and expanded only when none of it reaches the target.
   */
  async from(start: UserInfo, subjectLabel: string): Promise<{ paths: EscalationPath[]; incomplete: boolean }> {
    const paths: EscalationPath[] = [];
    const seen = new Set<string>();
    let frontier: Frontier[] = [{ at: identity(start), steps: [] }];
    seen.add(frontier[0].at.key);
    for (let depth = 0; frontier.length; depth++) {
      for (const { at, steps } of frontier) {
        if (await this.allowed(at.user, this.target)) paths.push({ subject: subjectLabel, steps });
        else if (depth < this.limits.maxSteps) {
          const binding = await this.bindStep(at.user);
          if (binding) paths.push({ subject: subjectLabel, steps: [...steps, binding] });
        }
      }
      if (paths.length) {
        // Holding the target (no step) is the only answer worth giving then.
        const shortest = paths.some((p) => !p.steps.length) ? paths.filter((p) => !p.steps.length) : paths;
        return { paths: shortest.slice(0, this.limits.maxPaths), incomplete: this.exhausted || shortest.length > this.limits.maxPaths };
      }
      if (depth >= this.limits.maxSteps) return { paths, incomplete: true };
      const next: Frontier[] = [];
      for (const { at, steps } of frontier) {
        if (seen.size >= this.limits.maxIdentities || this.exhausted) return { paths, incomplete: true };
        for (const step of await this.identitySteps(at.user)) {
          const yielded = identity({ username: step.yields.user ?? '', groups: step.yields.groups ?? [] });
          if (seen.has(yielded.key)) continue; // cycles are cut: an identity is reached once, by its shortest path
          seen.add(yielded.key);
          next.push({ at: yielded, steps: [...steps, step] });
        }
      }
      frontier = next;
    }
    return { paths, incomplete: this.exhausted };
  }

  /** Every subject of the policy as the identity it stands for, users, then groups, then service accounts. */
  subjects(): Array<{ user: UserInfo; label: string }> {
    const c = this.candidates;
    return [
      ...[...c.users].sort().map((name) => ({ user: { username: name, groups: [ALL_AUTHENTICATED] }, label: name })),
      ...[...c.groups]
        .sort()
        .filter((g) => g !== 'system:masters')
        .map((g) => ({ user: { username: '', groups: [g, ALL_AUTHENTICATED] }, label: `group:${g}` })),
      ...[...c.serviceAccounts.values()].map((sa) => ({ user: serviceAccountIdentity(sa.namespace, sa.name), label: serviceAccountUsername(sa.namespace, sa.name) })),
    ];
  }

  /** The grant of a permission to a user (from a traced decision), or null when not allowed. */
  private async grantOf(user: UserInfo, permission: StepPermission): Promise<StepGrant | null> {
    const key = `${identityKey(user)}\u0001${JSON.stringify(permission)}`;
    const cached = this.answers.get(key);
    if (cached !== undefined) return cached;
    if (this.decisions >= this.limits.maxDecisions) {
      this.exhausted = true;
      return null;
    }
    this.decisions++;
    const trace: AuthorizerAnswer[] = [];
    const attrs = permissionAttrs(user, permission);
    const result = await this.world.chain.authorize(attrs, { trace, arrivedAt: this.world.arrivedAt });
    let grant: StepGrant | null = null;
    if (result.decision === 'Allow') {
      const decider = trace[trace.length - 1];
      grant = { authorizer: { type: decider.type, name: decider.name } };
      if (decider.type === 'RBAC') {
        this.world.policy.visitRulesFor(user, attrs.namespace, (source, rule) => {
          if (!source || !rule || !ruleAllows(rule, attrs)) return true;
          const b = source.binding;
          grant!.binding = b.kind === 'RoleBinding' ? { kind: b.kind, namespace: b.namespace, name: b.name } : { kind: b.kind, name: b.name };
          grant!.role = { kind: String(b.roleRef?.kind ?? ''), name: String(b.roleRef?.name ?? '') };
          return false;
        });
      }
    }
    this.answers.set(key, grant);
    return grant;
  }

  private async allowed(user: UserInfo, permission: StepPermission): Promise<boolean> {
    return (await this.grantOf(user, permission)) !== null;
  }

  /** A step that uses every permission given, or undefined when one is not granted. */
  private async step(user: UserInfo, capability: Capability, permissions: StepPermission[], yields: PathStep['yields']): Promise<PathStep | undefined> {
    const uses: PathStep['uses'] = [];
    for (const permission of permissions) {
      const grantedBy = await this.grantOf(user, permission);
      if (!grantedBy) return undefined;
      uses.push({ permission, grantedBy });
    }
    return { capability, actor: user.username || `member of ${user.groups.join(', ')}`, uses, yields };
  }

  /**
   * Binding a role that grants the target to oneself, within escalation prevention: a
   * binding is written only by whoever may create it and holds `bind` on the role (holding
   * the role's permissions is reaching the target already); or writing such a role, which
   * needs `escalate`, then binding it.
   */
  private async bindStep(user: UserInfo): Promise<PathStep | undefined> {
    const namespace = this.target.namespace ?? '';
    const bindingResource = namespace ? 'rolebindings' : 'clusterrolebindings';
    const createBinding: StepPermission = { verb: 'create', group: RBAC, resource: bindingResource, ...(namespace ? { namespace } : {}) };
    if (!(await this.allowed(user, createBinding))) return undefined;
    for (const role of this.powerfulRoles) {
      const bind: StepPermission = { verb: 'bind', group: RBAC, resource: 'clusterroles', name: role };
      const step = await this.step(user, 'bind', [createBinding, bind], { clusterRole: role });
      if (step) return step;
    }
    const createRole: StepPermission = { verb: 'create', group: RBAC, resource: 'clusterroles' };
    const escalate: StepPermission = { verb: 'escalate', group: RBAC, resource: 'clusterroles' };
    const bindAny: StepPermission = { verb: 'bind', group: RBAC, resource: 'clusterroles' };
    return this.step(user, 'escalate', [createRole, escalate, createBinding, bindAny], { clusterRole: '(a new ClusterRole granting the target)' });
  }

  /** Every identity one step away. */
  private async identitySteps(user: UserInfo): Promise<PathStep[]> {
    const steps: PathStep[] = [];
    const push = (s: PathStep | undefined) => s && steps.push(s);
    const c = this.candidates;
    let impersonableUser: string | undefined;
    for (const name of [...c.users].sort()) {
      const step = await this.step(user, 'impersonate', [{ verb: 'impersonate', group: '', resource: 'users', name }], { user: name, groups: [ALL_AUTHENTICATED] });
      if (step) impersonableUser ??= name;
      push(step);
    }
    if (impersonableUser !== undefined) {
      for (const group of [...c.groups].sort()) {
        push(
          await this.step(
            user,
            'impersonate',
            [
              { verb: 'impersonate', group: '', resource: 'users', name: impersonableUser },
              { verb: 'impersonate', group: '', resource: 'groups', name: group },
            ],
            { user: impersonableUser, groups: [group, ALL_AUTHENTICATED] },
          ),
        );
      }
    }
    for (const node of [...c.nodes].sort()) {
      const nodeUser = `system:node:${node}`;
      push(
        await this.step(
          user,
          'impersonate',
          [
            { verb: 'impersonate', group: '', resource: 'users', name: nodeUser },
            { verb: 'impersonate', group: '', resource: 'groups', name: 'system:nodes' },
          ],
          { user: nodeUser, groups: ['system:nodes', ALL_AUTHENTICATED] },
        ),
      );
    }
    const sorted = [...c.serviceAccounts.values()].sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
    for (const sa of sorted) {
      const as = serviceAccountIdentity(sa.namespace, sa.name);
      const yields = { user: as.username, groups: as.groups };
      const ns = sa.namespace;
      push(await this.step(user, 'impersonate', [{ verb: 'impersonate', group: '', resource: 'serviceaccounts', namespace: ns, name: sa.name }], yields));
      push(await this.step(user, 'create-token', [{ verb: 'create', group: '', resource: 'serviceaccounts', subresource: 'token', namespace: ns, name: sa.name }], yields));
      push(await this.step(user, 'create-pod', [{ verb: 'create', group: '', resource: 'pods', namespace: ns }], yields));
      for (const secret of c.tokenSecrets.get(`${ns}/${sa.name}`) ?? []) {
        push(await this.step(user, 'read-token-secret', [{ verb: 'get', group: '', resource: 'secrets', namespace: ns, name: secret.metadata.name }], yields));
      }
      if (c.scheduledServiceAccounts.has(`${ns}/${sa.name}`)) {
        push(await this.step(user, 'nodes-proxy', [{ verb: 'create', group: '', resource: 'nodes', subresource: 'proxy' }], yields));
      }
    }
    // Several capabilities may yield one identity: the first found stands for it.
    const byIdentity = new Map<string, PathStep>();
    for (const s of steps) {
      const key = identityKey({ username: s.yields.user ?? '', groups: s.yields.groups ?? [] });
      if (!byIdentity.has(key)) byIdentity.set(key, s);
    }
    return [...byIdentity.values()];
  }
}
