import { ALL_AUTHENTICATED, UserInfo } from '../../apimachinery/user-info';
import { AuthorizationAttributes } from '../../authorization/authorizer';
import { AuthorizerChain } from '../../authorization/authorizer-chain';
import { resourceAttributes } from '../../authorization/request-attributes';
import { EscalationPath, PathStep, StepPermission } from './escalation-path-types';
import { ConstrainedMode } from '../../authentication/impersonation/constrained-impersonation';
import { EscalationPathSearch, Identity, identity, isImpersonation, nodeIdentity, PolicySubject, StepEdge } from './escalation-path-search';

/**
 * Every subject's shortest path to the target at once, searched backwards from it: first the
 * identities that hold the target (one decision each) or can bind a role granting it, then,
 * level by level, whoever can take a step that yields an identity already known to reach it.
 * "Whoever can" comes from the reverse indexes of who-can (ResourceAccessReview's) and is then
 * asked of the authorizer chain like every step of the forward search, so each step of an answer
 * is a real decision; the Node authorizer's identities are always asked, and with an authorizer
 * that cannot say whom it allows (a webhook) every identity is. The work grows with the
 * identities that reach the target and the subjects who can take a step toward them, not with
 * the subjects times the candidates, as one forward search per subject would.
 */

/** Whom RBAC allows an action (users and groups), as the who-can answer gives them. */
export type WhoCan = (attrs: AuthorizationAttributes) => { users: readonly string[]; groups: readonly string[] };

/** Authorizers whose allowed subjects who-can enumerates (or that allow nobody); Node's are the node identities. */
const ENUMERABLE = new Set(['RBAC', 'Node', 'Guardrail', 'AlwaysDeny']);

/** Entries stand for identities; an impersonated one (`impersonatedOf`) stands for its base reached by impersonation, which cannot impersonate in turn. */
interface Entry {
  /** Position in the search's order (users, groups, service accounts, nodes): candidates are tried in it. */
  index: number;
  id: Identity;
  /** What it stands for: a subject of the policy, or a node identity (an intermediate only). */
  subject?: PolicySubject;
  kind: 'user' | 'group' | 'serviceaccount' | 'node';
  name: string;
  namespace?: string;
  impersonatedOf?: Entry;
}

export interface ReachingSubject {
  subject: PolicySubject;
  /** Its shortest path; no step when it holds the target. */
  path: EscalationPath;
}

export class ReverseEscalationSearch {
  private readonly entries: Entry[] = [];
  private readonly byUser = new Map<string, Entry[]>();
  private readonly byGroup = new Map<string, Entry[]>();
  private readonly nodes: Entry[] = [];
  /** Identity key -> its steps to the target. */
  private readonly reached = new Map<string, PathStep[]>();
  private readonly askEveryone: boolean;
  private readonly impersonated = new Map<Entry, Entry>();

  constructor(
    private readonly search: EscalationPathSearch,
    chain: AuthorizerChain,
    private readonly whoCan: WhoCan,
  ) {
    this.askEveryone = chain.authorizers.some((a) => !ENUMERABLE.has(a.type));
    for (const subject of search.subjects()) {
      const s = subject.subject;
      this.add({ index: this.entries.length, id: identity(subject.user), subject, kind: s.kind === 'User' ? 'user' : s.kind === 'Group' ? 'group' : 'serviceaccount', name: s.name, namespace: s.namespace });
    }
    for (const node of [...search.candidates.nodes].sort()) {
      const entry: Entry = { index: this.entries.length, id: identity(nodeIdentity(node)), kind: 'node', name: node };
      this.add(entry);
      this.nodes.push(entry);
    }
  }

  private add(entry: Entry): void {
    this.entries.push(entry);
    const file = <K>(map: Map<K, Entry[]>, key: K) => (map.get(key) ?? map.set(key, []).get(key)!).push(entry);
    if (entry.id.user.username) file(this.byUser, entry.id.user.username);
    for (const group of entry.id.user.groups) file(this.byGroup, group);
  }

  /**
   * Every subject of the policy with its shortest path (subjects with none are left out);
   * `incomplete` when the decision budget ran out or a subject's path would be longer than maxSteps
   * was not looked for.
   */
  async run(): Promise<{ reaching: ReachingSubject[]; incomplete: boolean }> {
    const { maxSteps } = this.search.limits;
    const levels: Entry[][] = [[], []];
    for (const entry of this.entries) {
      if (await this.search.holdsTarget(entry.id, [])) this.reach(entry, [], levels[0]);
    }
    for (const entry of this.entries) {
      if (this.reached.has(entry.id.key)) continue;
      const bind = await this.search.bindStep(entry.id);
      if (bind) this.reach(entry, [bind], levels[1]);
    }
    for (let depth = 0; depth < maxSteps && !this.search.exhausted; depth++) {
      levels[depth + 1] ??= [];
      for (const known of levels[depth]) await this.predecessors(known, levels[depth + 1]);
    }
    const reaching: ReachingSubject[] = [];
    for (const entry of this.entries) {
      const steps = this.reached.get(entry.id.key);
      if (entry.subject && steps) reaching.push({ subject: entry.subject, path: { subject: entry.subject.label, steps } });
    }
    // Beyond the last level searched, longer paths may exist: say so only where one could.
    const frontierLeft = (levels[maxSteps] ?? []).length > 0;
    return { reaching, incomplete: this.search.exhausted || (frontierLeft && (await this.anyStepLeft(levels[maxSteps]))) };
  }

  /**
   * Records a path of an identity, and the same for it impersonated when the path does not
   * start by impersonating (an impersonated identity takes every other step as itself).
   */
  private reach(entry: Entry, steps: PathStep[], level: Entry[]): void {
    if (!this.reached.has(entry.id.key)) {
      this.reached.set(entry.id.key, steps);
      level.push(entry);
    }
    if (entry.impersonatedOf || isImpersonation(steps[0])) return;
    const impersonated = this.impersonatedOf(entry);
    if (this.reached.has(impersonated.id.key)) return;
    this.reached.set(impersonated.id.key, steps);
    level.push(impersonated);
  }

  private impersonatedOf(entry: Entry): Entry {
    let found = this.impersonated.get(entry);
    if (!found) this.impersonated.set(entry, (found = { ...entry, subject: undefined, id: identity(entry.id.user, undefined, true), impersonatedOf: entry }));
    return found;
  }

  /** The identities that can take one step more toward the target, to `known`; each reached goes into `next`. */
  private async predecessors(known: Entry, next: Entry[]): Promise<void> {
    const steps = this.reached.get(known.id.key)!;
    const s = this.search;
    // Impersonating an identity leads to it impersonated; every other step to it whole (a token, a pod).
    const impersonating = !!known.impersonatedOf;
    const edges: StepEdge[] = [];
    if (known.kind === 'user') edges.push(s.userImpersonation(known.name));
    else if (known.kind === 'node') edges.push(s.userImpersonation(known.id.user.username));
    else if (known.kind === 'serviceaccount') edges.push(...s.serviceAccountEdges(known.namespace!, known.name));
    for (const edge of edges) {
      if ((edge.capability === 'impersonate') !== impersonating) continue;
      for (const actor of this.candidatesFor(edge.permissions[0], impersonating)) {
        const step = await s.step(actor.id, edge);
        if (step) this.reach(actor, [step, ...steps], next);
      }
    }
    if (!impersonating) return;
    if (known.kind === 'group') await this.byGroupImpersonation(known, steps, next);
    else await this.byConstrainedImpersonation(known, steps, next);
  }

  /** Legacy impersonation of a group (with the first user the actor may impersonate), then the group's own next step taken by that pair. */
  private async byGroupImpersonation(known: Entry, steps: PathStep[], next: Entry[]): Promise<void> {
    if (isImpersonation(steps[0])) return;
    const s = this.search;
    const users = [...s.candidates.users].sort();
    for (const actor of this.candidatesFor({ verb: 'impersonate', group: '', resource: 'groups', name: known.name }, true)) {
      let user: string | undefined;
      for (const name of users) if ((user = (await s.grantOf(actor.id.user, { verb: 'impersonate', group: '', resource: 'users', name })) ? name : undefined) !== undefined) break;
      if (user === undefined) continue;
      const step = await s.step(actor.id, s.groupImpersonation(known.name, user));
      if (!step) continue;
      const rest = await this.retake(identity({ username: user, groups: [known.name, ALL_AUTHENTICATED] }, undefined, true), [step], steps);
      if (rest) this.reach(actor, rest, next);
    }
  }

  /** Constrained impersonation of the identity, usable when the actor holds impersonate-on for the identity's next step (or the target). */
  private async byConstrainedImpersonation(known: Entry, steps: PathStep[], next: Entry[]): Promise<void> {
    if (isImpersonation(steps[0])) return;
    const s = this.search;
    const edge = s.constrainedImpersonation(known.id.user);
    for (const actor of this.candidatesFor(edge.permissions[0], true)) {
      const step = await s.step(actor.id, edge);
      if (!step) continue;
      const via = { impersonator: actor.id.user, mode: edge.yields.impersonationMode as ConstrainedMode };
      const rest = await this.retake(identity(known.id.user, via), [step], steps);
      if (rest) this.reach(actor, rest, next);
    }
  }

  /**
   * The path of an identity reached by `prefix` whose known continuation (`steps`, taken by
   * another identity with the same reach) it must take itself: holding the target, or the
   * first step asked again as it; the steps after yield identities of their own.
   */
  private async retake(at: Identity, prefix: PathStep[], steps: PathStep[]): Promise<PathStep[] | undefined> {
    const s = this.search;
    if (!steps.length) return s.holdsTarget(at, prefix);
    const [first, ...rest] = steps;
    const again =
      first.capability === 'bind' || first.capability === 'escalate'
        ? await s.bindStep(at)
        : await s.step(at, { capability: first.capability, permissions: first.uses.map((u) => u.permission).filter((p) => !p.verb.startsWith('impersonate-on:')), yields: first.yields });
    return again ? [...prefix, again, ...rest] : undefined;
  }

  /**
   * The identities that may hold a permission and for which a step with it could be news: not
   * yet known to reach the target, or (for a step other than impersonating) not yet impersonated.
   */
  private candidatesFor(permission: StepPermission, impersonating: boolean): Entry[] {
    const news = (e: Entry) => !this.reached.has(e.id.key) || (!impersonating && !this.reached.has(this.impersonatedOf(e).id.key));
    if (this.askEveryone) return this.entries.filter(news);
    const attrs = resourceAttributes({
      user: { username: '', groups: [] } as UserInfo,
      verb: permission.verb,
      apiGroup: permission.group,
      apiVersion: '*',
      resource: permission.resource,
      subresource: permission.subresource,
      namespace: permission.namespace,
      name: permission.name,
    });
    const { users, groups } = this.whoCan(attrs);
    const found = new Set<Entry>();
    for (const u of users) for (const e of this.byUser.get(u) ?? []) found.add(e);
    for (const g of groups) for (const e of this.byGroup.get(g) ?? []) found.add(e);
    for (const e of this.nodes) found.add(e);
    return [...found].filter(news).sort((a, b) => a.index - b.index);
  }

  /** Whether anyone not yet reached can take a step toward the last level (a longer path exists). */
  private async anyStepLeft(last: Entry[]): Promise<boolean> {
    const before = this.reached.size;
    const probe: Entry[] = [];
    for (const known of last) {
      await this.predecessors(known, probe);
      if (this.reached.size > before) break;
    }
    // What the probe found lies beyond maxSteps: it is not an answer.
    for (const e of probe) this.reached.delete(e.id.key);
    return probe.length > 0;
  }
}

