import { ALL_AUTHENTICATED, UserInfo } from '../../apimachinery/user-info';
import { Pod } from '../../core/kinds/pod';
import { Secret, SECRET_TYPE_SERVICE_ACCOUNT_TOKEN, SERVICE_ACCOUNT_NAME_ANNOTATION } from '../../core/kinds/secret';
import { AuthorizationAttributes } from '../../authorization/authorizer';
import { AuthorizerAnswer, AuthorizerChain } from '../../authorization/authorizer-chain';
import { collectRules, PolicyIndex } from '../../authorization/rbac/policy-index';
import { ruleAllows, rulesAllow } from '../../authorization/rbac/rule-matching';
import { serviceAccountUsername } from '../../authorization/rbac/subjects';
import { resourceAttributes } from '../../authorization/request-attributes';
import { GROUP_KIND, PolicyRule, RoleBinding, SERVICE_ACCOUNT_KIND, USER_KIND } from '../../apis/rbac/types';
import { ConstrainedMode, impersonateOnVerb, impersonateVerb } from '../../authentication/impersonation/constrained-impersonation';
import { Capability, EscalationPath, PathStep, StepGrant, StepPermission } from './escalation-path-types';

/**
 * A breadth-first search over identities: from the subject, every capability the live policy
 * and the authorizer chain grant it that yields another identity (impersonation, running a
 * pod as a service account, minting its token, reading its token Secret, proxying to a node
 * and so exec-ing into its pods) or a role (bind, escalate). Every permission is asked of the
 * chain itself (guardrails, Node, RBAC, webhooks), traced so that nothing is counted as a
 * grant. Shortest paths come first; the first identity that reaches the target ends its branch.
 *
 * Constrained impersonation (`impersonate:<mode>` on the identity) yields the identity only for
 * the actions the impersonator also holds `impersonate-on:<mode>:<verb>` for: every later
 * permission of that identity is asked twice, of the identity and as `impersonate-on` of the
 * impersonator, and such an identity cannot impersonate again (kube takes one level).
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

/** An identity reached by constrained impersonation: usable only where the impersonator holds `impersonate-on:<mode>:<verb>`. */
export interface Restriction {
  impersonator: UserInfo;
  mode: ConstrainedMode;
}

export interface Identity {
  key: string;
  user: UserInfo;
  via?: Restriction;
  /** Reached by impersonating it: a request carries one impersonation, so it cannot impersonate in turn. */
  impersonated?: boolean;
}

interface ServiceAccountRef {
  namespace: string;
  name: string;
}

const RBAC = 'rbac.authorization.platform.io';
const AUTHENTICATION = 'authentication.platform.io';
const SA_PREFIX = 'system:serviceaccount:';
const NODES_GROUP = 'system:nodes';
/**
 * Verbs escalation prevention asks of the user a request runs as, inside the request (bind,
 * escalate): constrained impersonation's `impersonate-on` covers the request itself only.
 */
const CHECKED_WITHIN_REQUEST = new Set(['bind', 'escalate']);
/** Authorizers that allow nobody but what RBAC allows (Node: node identities only, asked in full). */
const ONLY_RBAC_ALLOWS = new Set(['RBAC', 'Guardrail', 'AlwaysDeny', 'Node']);

export function serviceAccountIdentity(namespace: string, name: string): UserInfo {
  return { username: serviceAccountUsername(namespace, name), groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, ALL_AUTHENTICATED] };
}

export const identityKey = (user: UserInfo) => `${user.username}\u0000${[...user.groups].sort().join(',')}`;
export const identity = (user: UserInfo, via?: Restriction, impersonated = false): Identity => {
  if (via) return { key: `${identityKey(user)}\u0002${identityKey(via.impersonator)}\u0002${via.mode}`, user, via, impersonated: true };
  return impersonated ? { key: `${identityKey(user)}\u0003impersonated`, user, impersonated } : { key: identityKey(user), user };
};
export const isImpersonation = (step: PathStep | undefined) => step?.capability === 'impersonate' || step?.capability === 'constrained-impersonate';
export const nodeIdentity = (node: string): UserInfo => ({ username: `system:node:${node}`, groups: [NODES_GROUP, ALL_AUTHENTICATED] });
const actorLabel = (user: UserInfo) => user.username || `member of ${user.groups.join(', ')}`;
/** What a step yields, as the identity the next step is taken by. */
export const yieldedIdentity = (step: PathStep, impersonator: UserInfo): Identity =>
  identity(
    { username: step.yields.user ?? '', groups: step.yields.groups ?? [] },
    step.yields.impersonationMode ? { impersonator, mode: step.yields.impersonationMode as ConstrainedMode } : undefined,
    isImpersonation(step),
  );

function permissionAttrs(user: UserInfo, p: StepPermission): AuthorizationAttributes {
  return resourceAttributes({ user, verb: p.verb, apiGroup: p.group, apiVersion: '*', resource: p.resource, subresource: p.subresource, namespace: p.namespace, name: p.name });
}

/** The candidates the policy and the store offer: who is bound to anything, who pods run as, whose tokens are stored. */
export class Candidates {
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

/** A subject of the policy, as the identity it stands for. */
export interface PolicySubject {
  user: UserInfo;
  label: string;
  subject: { kind: 'User' | 'Group' | 'ServiceAccount'; name: string; namespace?: string };
}

/** A way to reach an identity: the capability, the permissions it needs (the first is the one to ask "who can" about) and what it yields. */
export interface StepEdge {
  capability: Capability;
  permissions: StepPermission[];
  yields: PathStep['yields'];
}

export class EscalationPathSearch {
  readonly candidates: Candidates;
  /** The ClusterRoles that grant the target (bind or escalate into them reaches it). */
  private readonly powerfulRoles: string[];
  /** The ClusterRoleBindings to those roles, by name, with their role (adding oneself to one reaches the target). */
  private readonly powerfulBindings = new Map<string, string>();
  private readonly answers = new Map<string, StepGrant | null>();
  private decisions = 0;
  /**
   * Whether only RBAC can allow (besides the Node authorizer, for node identities): then a
   * permission none of the caller's RBAC rules allows is not asked of the chain at all.
   */
  private readonly onlyRbacAllows: boolean;
  /** The caller's RBAC rules in a namespace, as the RBAC authorizer visits them. */
  private readonly rulesIn = new Map<string, PolicyRule[]>();
  /** The decision budget ran out: what was not asked counts as not granted, and answers say incomplete. */
  exhausted = false;

  constructor(
    private readonly world: SearchWorld,
    readonly target: StepPermission,
    readonly limits: SearchLimits,
  ) {
    this.candidates = new Candidates(world);
    this.onlyRbacAllows = world.chain.authorizers.every((a) => ONLY_RBAC_ALLOWS.has(a.type));
    const targetAttrs = permissionAttrs({ username: '', groups: [] }, target);
    this.powerfulRoles = (world.policy.objectsOf('ClusterRole') as Array<{ metadata: { name?: string }; rules?: [] }>)
      .filter((role) => rulesAllow(role.rules ?? [], targetAttrs))
      .map((role) => role.metadata.name ?? '')
      .sort();
    const powerful = new Set(this.powerfulRoles);
    for (const b of world.policy.objectsOf('ClusterRoleBinding') as RoleBinding[]) {
      if (b.roleRef?.kind === 'ClusterRole' && powerful.has(b.roleRef.name)) this.powerfulBindings.set(b.metadata?.name ?? '', b.roleRef.name);
    }
  }

  /** Authorizer decisions asked so far. */
  get decisionCount(): number {
    return this.decisions;
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
        const held = await this.holdsTarget(at, steps);
        if (held) paths.push({ subject: subjectLabel, steps: held });
        else if (depth < this.limits.maxSteps) {
          const binding = await this.bindStep(at);
          if (binding) paths.push({ subject: subjectLabel, steps: [...steps, binding] });
        }
      }
      if (paths.length) {
        // A level's holders reach it in fewer steps than its binders (one more step): only the shortest are answers.
        const fewest = Math.min(...paths.map((p) => p.steps.length));
        const shortest = paths.filter((p) => p.steps.length === fewest);
        return { paths: shortest.slice(0, this.limits.maxPaths), incomplete: this.exhausted || shortest.length > this.limits.maxPaths };
      }
      if (depth >= this.limits.maxSteps) return { paths, incomplete: true };
      const next: Frontier[] = [];
      for (const { at, steps } of frontier) {
        if (seen.size >= this.limits.maxIdentities || this.exhausted) return { paths, incomplete: true };
        for (const step of await this.identitySteps(at)) {
          const yielded = yieldedIdentity(step, at.user);
          // Cycles are cut: an identity is reached once, by its shortest path (and a restricted one not once it is held whole).
          if (seen.has(yielded.key) || (yielded.impersonated && seen.has(identityKey(yielded.user)))) continue;
          seen.add(yielded.key);
          next.push({ at: yielded, steps: [...steps, step] });
        }
      }
      frontier = next;
    }
    return { paths, incomplete: this.exhausted };
  }

  /** Every subject of the policy as the identity it stands for, users, then groups, then service accounts. */
  subjects(): PolicySubject[] {
    const c = this.candidates;
    return [
      ...[...c.users].sort().map((name): PolicySubject => ({ user: { username: name, groups: [ALL_AUTHENTICATED] }, label: name, subject: { kind: 'User', name } })),
      ...[...c.groups]
        .sort()
        .filter((g) => g !== 'system:masters')
        .map((g): PolicySubject => ({ user: { username: '', groups: [g, ALL_AUTHENTICATED] }, label: `group:${g}`, subject: { kind: 'Group', name: g } })),
      ...[...c.serviceAccounts.values()].map(
        (sa): PolicySubject => ({ user: serviceAccountIdentity(sa.namespace, sa.name), label: serviceAccountUsername(sa.namespace, sa.name), subject: { kind: 'ServiceAccount', name: sa.name, namespace: sa.namespace } }),
      ),
    ];
  }

  /** The grant of a permission to a user (from a traced decision), or null when not allowed. */
  async grantOf(user: UserInfo, permission: StepPermission): Promise<StepGrant | null> {
    const key = `${identityKey(user)}\u0001${JSON.stringify(permission)}`;
    const cached = this.answers.get(key);
    if (cached !== undefined) return cached;
    if (!this.mayBeAllowed(user, permission)) {
      this.answers.set(key, null);
      return null;
    }
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

  /**
   * Whether the chain could allow the permission: with only RBAC allowing, whether one of the
   * caller's rules matches it (RBAC's own visit and matching, so nothing it would allow is
   * skipped); the chain then decides. A cheap filter, as a search asks about many candidates.
   */
  private mayBeAllowed(user: UserInfo, permission: StepPermission): boolean {
    if (!this.onlyRbacAllows || user.groups.includes(NODES_GROUP)) return true;
    const namespace = permission.namespace ?? '';
    const key = `${identityKey(user)}\u0001${namespace}`;
    let rules = this.rulesIn.get(key);
    if (!rules) this.rulesIn.set(key, (rules = collectRules(this.world.policy, user, namespace).rules));
    const attrs = permissionAttrs(user, permission);
    return rules.some((rule) => ruleAllows(rule, attrs));
  }

  /**
   * The uses of permissions by an identity, or undefined when one is not granted: a restricted
   * identity's each also needs the impersonator's `impersonate-on:<mode>:<verb>` on the same
   * attributes, but for the checks made within a request.
   */
  private async usesOf(at: Identity, permissions: StepPermission[]): Promise<PathStep['uses'] | undefined> {
    const uses: PathStep['uses'] = [];
    for (const permission of permissions) {
      const grantedBy = await this.grantOf(at.user, permission);
      if (!grantedBy) return undefined;
      uses.push({ permission, grantedBy });
      if (!at.via || CHECKED_WITHIN_REQUEST.has(permission.verb)) continue;
      const onBehalf = { ...permission, verb: impersonateOnVerb(at.via.mode, permission.verb) };
      const allowedBy = await this.grantOf(at.via.impersonator, onBehalf);
      if (!allowedBy) return undefined;
      uses.push({ permission: onBehalf, grantedBy: allowedBy });
    }
    return uses;
  }

  /** A step that uses every permission given, or undefined when one is not granted. */
  async step(at: Identity, edge: StepEdge): Promise<PathStep | undefined> {
    const uses = await this.usesOf(at, edge.permissions);
    if (!uses) return undefined;
    const actor = at.via ? `${actorLabel(at.user)} (impersonated by ${actorLabel(at.via.impersonator)})` : actorLabel(at.user);
    return { capability: edge.capability, actor, uses, yields: edge.yields };
  }

  /**
   * Whether the identity holds the target, as the steps that reach it: those given, unchanged
   * for a whole identity; for one reached by constrained impersonation, its last step (that
   * impersonation) also uses the target, as the identity and as `impersonate-on`.
   */
  async holdsTarget(at: Identity, steps: PathStep[]): Promise<PathStep[] | undefined> {
    const uses = await this.usesOf(at, [this.target]);
    if (!uses) return undefined;
    if (!at.via) return steps;
    const last = steps[steps.length - 1];
    return [...steps.slice(0, -1), { ...last, uses: [...last.uses, ...uses] }];
  }

  /**
   * Binding a role that grants the target to oneself, within escalation prevention: a
   * binding is written only by whoever may create it and holds `bind` on the role (holding
   * the role's permissions is reaching the target already); or writing such a role, which
   * needs `escalate`, then binding it.
   */
  async bindStep(at: Identity): Promise<PathStep | undefined> {
    const namespace = this.target.namespace ?? '';
    const bindingResource = namespace ? 'rolebindings' : 'clusterrolebindings';
    const createBinding: StepPermission = { verb: 'create', group: RBAC, resource: bindingResource, ...(namespace ? { namespace } : {}) };
    if (!(await this.usesOf(at, [createBinding]))) return this.updateStep(at);
    for (const role of this.powerfulRoles) {
      const bind: StepPermission = { verb: 'bind', group: RBAC, resource: 'clusterroles', name: role };
      const step = await this.step(at, { capability: 'bind', permissions: [createBinding, bind], yields: { clusterRole: role } });
      if (step) return step;
    }
    const createRole: StepPermission = { verb: 'create', group: RBAC, resource: 'clusterroles' };
    const escalate: StepPermission = { verb: 'escalate', group: RBAC, resource: 'clusterroles' };
    const bindAny: StepPermission = { verb: 'bind', group: RBAC, resource: 'clusterroles' };
    const created = await this.step(at, { capability: 'escalate', permissions: [createRole, escalate, createBinding, bindAny], yields: { clusterRole: '(a new ClusterRole granting the target)' } });
    return created ?? this.updateStep(at);
  }

  /**
   * Without `create` on bindings: adding oneself to an existing ClusterRoleBinding of a role
   * that grants the target (`update` on it, and `bind` on the role, as escalation prevention
   * asks of an update too); or adding the target to a ClusterRole bound to oneself (`update`
   * and `escalate` on it; an aggregated role is rewritten by its controller, so not that).
   */
  async updateStep(at: Identity): Promise<PathStep | undefined> {
    if (this.target.namespace) return undefined;
    for (const name of this.namesGranted(at.user, 'clusterrolebindings', (n) => this.powerfulBindings.has(n))) {
      const role = this.powerfulBindings.get(name)!;
      const permissions: StepPermission[] = [
        { verb: 'update', group: RBAC, resource: 'clusterrolebindings', name },
        { verb: 'bind', group: RBAC, resource: 'clusterroles', name: role },
      ];
      const step = await this.step(at, { capability: 'bind', permissions, yields: { clusterRole: role } });
      if (step) return step;
    }
    for (const role of this.ownClusterRoles(at.user)) {
      const permissions: StepPermission[] = [
        { verb: 'update', group: RBAC, resource: 'clusterroles', name: role },
        { verb: 'escalate', group: RBAC, resource: 'clusterroles', name: role },
      ];
      const step = await this.step(at, { capability: 'escalate', permissions, yields: { clusterRole: role } });
      if (step) return step;
    }
    return undefined;
  }

  /**
   * The names among those `wanted` accepts that the user's RBAC rules let it update (a rule
   * without resourceNames: all of them, in name order), read from the index's own rules
   * with the authorizer's matching; each is then asked of the chain.
   */
  private namesGranted(user: UserInfo, resource: string, wanted: (name: string) => boolean): string[] {
    const names = new Set<string>();
    let all = false;
    this.world.policy.visitRulesFor(user, '', (_source, rule) => {
      if (!rule) return true;
      for (const name of rule.resourceNames?.length ? rule.resourceNames : ['']) {
        const attrs = permissionAttrs(user, { verb: 'update', group: RBAC, resource, name: name || 'x' });
        if (!ruleAllows(rule, attrs)) continue;
        if (name) names.add(name);
        else all = true;
      }
      return !all;
    });
    const candidates = all ? [...this.powerfulBindings.keys()] : [...names];
    return candidates.filter(wanted).sort();
  }

  /** The ClusterRoles bound to the user cluster-wide (not aggregated ones). */
  private ownClusterRoles(user: UserInfo): string[] {
    const roles = new Set<string>();
    this.world.policy.visitRulesFor(user, '', (source) => {
      const ref = source?.binding.roleRef;
      if (source?.binding.kind === 'ClusterRoleBinding' && ref?.kind === 'ClusterRole') roles.add(String(ref.name));
      return true;
    });
    const aggregated = new Set((this.world.policy.objectsOf('ClusterRole') as Array<{ metadata: { name?: string }; aggregationRule?: unknown }>).filter((r) => r.aggregationRule).map((r) => r.metadata.name));
    return [...roles].filter((r) => !aggregated.has(r)).sort();
  }

  /** Legacy impersonation of a user (a node: with its group). */
  userImpersonation(name: string): StepEdge {
    if (this.candidates.nodes.has(name.slice('system:node:'.length)) && name.startsWith('system:node:')) {
      const node = nodeIdentity(name.slice('system:node:'.length));
      return {
        capability: 'impersonate',
        permissions: [
          { verb: 'impersonate', group: '', resource: 'users', name },
          { verb: 'impersonate', group: '', resource: 'groups', name: NODES_GROUP },
        ],
        yields: { user: node.username, groups: node.groups },
      };
    }
    return { capability: 'impersonate', permissions: [{ verb: 'impersonate', group: '', resource: 'users', name }], yields: { user: name, groups: [ALL_AUTHENTICATED] } };
  }

  /** Legacy impersonation of a group, with a user (kube needs one). */
  groupImpersonation(group: string, user: string): StepEdge {
    return {
      capability: 'impersonate',
      permissions: [
        { verb: 'impersonate', group: '', resource: 'groups', name: group },
        { verb: 'impersonate', group: '', resource: 'users', name: user },
      ],
      yields: { user, groups: [group, ALL_AUTHENTICATED] },
    };
  }

  /** Constrained impersonation of a user (user-info), a node (arbitrary-node) or a service account (serviceaccount). */
  constrainedImpersonation(yielded: UserInfo): StepEdge {
    const sa = yielded.username.startsWith(SA_PREFIX) ? yielded.username.slice(SA_PREFIX.length).split(':') : undefined;
    const node = yielded.username.startsWith('system:node:') ? yielded.username.slice('system:node:'.length) : undefined;
    const mode: ConstrainedMode = sa ? 'serviceaccount' : node !== undefined ? 'arbitrary-node' : 'user-info';
    const permission: StepPermission = sa
      ? { verb: impersonateVerb(mode), group: AUTHENTICATION, resource: 'serviceaccounts', namespace: sa[0], name: sa[1] }
      : node !== undefined
        ? { verb: impersonateVerb(mode), group: AUTHENTICATION, resource: 'nodes', name: node }
        : { verb: impersonateVerb(mode), group: AUTHENTICATION, resource: 'users', name: yielded.username };
    return { capability: 'constrained-impersonate', permissions: [permission], yields: { user: yielded.username, groups: yielded.groups, impersonationMode: mode } };
  }

  /** The ways to a service account's identity other than impersonating it. */
  serviceAccountEdges(namespace: string, name: string): StepEdge[] {
    const as = serviceAccountIdentity(namespace, name);
    const yields = { user: as.username, groups: as.groups };
    const c = this.candidates;
    const edges: StepEdge[] = [
      { capability: 'impersonate', permissions: [{ verb: 'impersonate', group: '', resource: 'serviceaccounts', namespace, name }], yields },
      { capability: 'create-token', permissions: [{ verb: 'create', group: '', resource: 'serviceaccounts', subresource: 'token', namespace, name }], yields },
      { capability: 'create-pod', permissions: [{ verb: 'create', group: '', resource: 'pods', namespace }], yields },
    ];
    for (const secret of c.tokenSecrets.get(`${namespace}/${name}`) ?? []) {
      edges.push({ capability: 'read-token-secret', permissions: [{ verb: 'get', group: '', resource: 'secrets', namespace, name: secret.metadata.name }], yields });
    }
    if (c.scheduledServiceAccounts.has(`${namespace}/${name}`)) {
      edges.push({ capability: 'nodes-proxy', permissions: [{ verb: 'create', group: '', resource: 'nodes', subresource: 'proxy' }], yields });
    }
    return edges;
  }

  /** Every identity one step away (an impersonated identity cannot impersonate in turn). */
  private async identitySteps(at: Identity): Promise<PathStep[]> {
    const steps: PathStep[] = [];
    const push = (s: PathStep | undefined) => s && steps.push(s);
    const c = this.candidates;
    const whole = !at.impersonated;
    const users = [...c.users].sort();
    const nodes = [...c.nodes].sort();
    const serviceAccounts = [...c.serviceAccounts.values()].sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
    if (whole) {
      let impersonableUser: string | undefined;
      for (const name of users) {
        const step = await this.step(at, this.userImpersonation(name));
        if (step) impersonableUser ??= name;
        push(step);
      }
      if (impersonableUser !== undefined) {
        for (const group of [...c.groups].sort()) push(await this.step(at, this.groupImpersonation(group, impersonableUser)));
      }
      for (const node of nodes) push(await this.step(at, this.userImpersonation(`system:node:${node}`)));
    }
    for (const sa of serviceAccounts) {
      for (const edge of this.serviceAccountEdges(sa.namespace, sa.name)) {
        if (edge.capability === 'impersonate' && !whole) continue;
        push(await this.step(at, edge));
      }
    }
    if (whole) {
      // Constrained impersonation last: an identity held whole is worth more than one usable for some actions.
      for (const name of users) push(await this.step(at, this.constrainedImpersonation({ username: name, groups: [ALL_AUTHENTICATED] })));
      for (const node of nodes) push(await this.step(at, this.constrainedImpersonation(nodeIdentity(node))));
      for (const sa of serviceAccounts) push(await this.step(at, this.constrainedImpersonation(serviceAccountIdentity(sa.namespace, sa.name))));
    }
    // Several capabilities may yield one identity: the first found stands for it.
    const byIdentity = new Map<string, PathStep>();
    for (const s of steps) {
      const key = yieldedIdentity(s, at.user).key;
      if (!byIdentity.has(key)) byIdentity.set(key, s);
    }
    return [...byIdentity.values()];
  }
}
