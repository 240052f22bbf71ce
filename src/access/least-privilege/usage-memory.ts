import { AuthorizationAttributes, AuthorizationResult, GrantingBinding } from '../../authorization/authorizer';
import { DecisionDetailSink } from '../../authorization/binding-usage-recorder';
import { PolicyRule, RoleRef } from '../../apis/rbac/types';
import { RoleResolution } from '../../authorization/rbac/policy-index';
import { recordRuleUsageDrop } from '../../metrics/rule-usage-metrics';
import { copyRule, ruleHash } from './rule-identity';

/** The concrete attributes of one decision (resource names are never kept: see the bounds). */
export interface UsedAttributes {
  verb: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  /** The path of a non-resource request; '' for a resource request. */
  nonResourceURL: string;
}

/** How often and when, in epoch milliseconds. */
export interface Counted {
  count: number;
  first: number;
  last: number;
}

/** One rule of one binding and the concrete attributes it allowed. */
export interface RuleUse extends UsedAttributes, Counted {
  bindingUid: string;
  bindingKind: GrantingBinding['kind'];
  bindingNamespace: string;
  bindingName: string;
  roleKind: string;
  roleName: string;
  /** The rule's index in its role when first recorded (-1 when the role had changed already). */
  ruleIndex: number;
  ruleHash: string;
  rule: PolicyRule;
}

/** Attributes the chain refused one user. */
export interface Denial extends UsedAttributes, Counted {
  user: string;
}

/** The memory bounds, per replica and flush interval (memory is emptied at every flush). */
export interface UsageLimits {
  /** Distinct (binding, rule, attributes) records. */
  maxRuleUses: number;
  /** Distinct (user, attributes) refusals. */
  maxDenials: number;
  /** Distinct refusals of one user: one noisy caller cannot fill the memory for the others. */
  maxDenialsPerUser: number;
}

export const DEFAULT_USAGE_LIMITS: UsageLimits = { maxRuleUses: 10_000, maxDenials: 10_000, maxDenialsPerUser: 100 };

/** What the memory needs of the policy index: the rules a binding's roleRef resolves to. */
export interface RoleRules {
  rulesOfRoleRef(roleRef: RoleRef, bindingNamespace: string): RoleResolution;
}

interface RuleIdentity {
  index: number;
  hash: string;
  rule: PolicyRule;
}

const SEP = '\u0000';

function attributesOf(attrs: AuthorizationAttributes): UsedAttributes {
  return attrs.isResourceRequest
    ? { verb: attrs.verb, apiGroup: attrs.apiGroup, resource: attrs.resource, subresource: attrs.subresource, namespace: attrs.namespace, nonResourceURL: '' }
    : { verb: attrs.verb, apiGroup: '', resource: '', subresource: '', namespace: '', nonResourceURL: attrs.path };
}

/**
 * The key of a decision's attributes within one namespace: short, so building and hashing it
 * is cheap (one long key per decision cost more than the decision).
 */
function attributeKey(attrs: AuthorizationAttributes): string {
  return attrs.isResourceRequest ? `${attrs.verb}${SEP}${attrs.apiGroup}${SEP}${attrs.resource}${SEP}${attrs.subresource}` : `${attrs.verb}${SEP}${SEP}${SEP}${SEP}${attrs.path}`;
}

const keyOfAttributes = (u: UsedAttributes) => (u.nonResourceURL ? `${u.verb}${SEP}${SEP}${SEP}${SEP}${u.nonResourceURL}` : `${u.verb}${SEP}${u.apiGroup}${SEP}${u.resource}${SEP}${u.subresource}`);

/** Records nested by short keys (a map per level), so a decision already seen builds one short string. */
type Nested<K, T> = Map<K, Map<string, Map<string, T>>>;

/** The record held under (outer, namespace, attributes), if any. */
function lookup<K, T>(records: Nested<K, T>, outer: K, namespace: string, key: string): T | undefined {
  return records.get(outer)?.get(namespace)?.get(key);
}

function insert<K, T>(records: Nested<K, T>, outer: K, namespace: string, key: string, record: T): void {
  let byNamespace = records.get(outer);
  if (!byNamespace) records.set(outer, (byNamespace = new Map<string, Map<string, T>>()));
  let byKey = byNamespace.get(namespace);
  if (!byKey) byNamespace.set(namespace, (byKey = new Map<string, T>()));
  byKey.set(key, record);
}

function* values<K, T>(records: Nested<K, T>): Generator<T> {
  for (const byNamespace of records.values()) for (const byKey of byNamespace.values()) yield* byKey.values();
}

export const ruleUseKey = (u: Pick<RuleUse, 'bindingUid' | 'ruleHash'> & UsedAttributes) =>
  [u.bindingUid, u.ruleHash, u.verb, u.apiGroup, u.resource, u.subresource, u.namespace, u.nonResourceURL].join(SEP);
export const denialKey = (d: Pick<Denial, 'user'> & UsedAttributes) => [d.user, d.verb, d.apiGroup, d.resource, d.subresource, d.namespace, d.nonResourceURL].join(SEP);

/**
 * Rule-level usage and refused attributes of one replica since its last flush, in memory.
 * Called on the decision path: a decision already seen costs one string key and one map
 * lookup; a rule's index and hash are computed once per rule object of the policy index.
 *
 * Bounded: resource names are never recorded (a million names are one record), and at most
 * `maxRuleUses` and `maxDenials` distinct records (`maxDenialsPerUser` per user) are held
 * between two flushes. When a bound is reached, new distinct records are dropped first
 * (counted in access_rule_usage_dropped_total); records already held keep counting, and the
 * binding usage still counts every grant.
 */
export class UsageMemory implements DecisionDetailSink {
  /** By binding uid, then rule, then namespace and attributes. */
  private uses = new Map<string, Nested<RuleIdentity, RuleUse>>();
  private useCount = 0;
  /** By user, then namespace and attributes. */
  private denials: Nested<string, Denial> = new Map();
  private denialCount = 0;
  private denialsPerUser = new Map<string, number>();
  private readonly identities = new WeakMap<PolicyRule, RuleIdentity>();

  constructor(
    private readonly roles: RoleRules,
    private readonly limits: UsageLimits = DEFAULT_USAGE_LIMITS,
  ) {}

  allowed(result: AuthorizationResult, attrs: AuthorizationAttributes, now: number): void {
    const binding = result.grantedBy as (GrantingBinding & { roleRef?: RoleRef }) | undefined;
    const rule = result.grantedByRule;
    if (!binding || !rule) return;
    const identity = this.identityOf(rule, binding);
    const uid = binding.uid;
    const key = attributeKey(attrs);
    let ofBinding = this.uses.get(uid);
    const held = ofBinding && lookup(ofBinding, identity, attrs.namespace, key);
    if (held) {
      held.count++;
      held.last = now;
      return;
    }
    if (this.useCount >= this.limits.maxRuleUses) return recordRuleUsageDrop('allowed', 'total');
    if (!ofBinding) this.uses.set(uid, (ofBinding = new Map() as Nested<RuleIdentity, RuleUse>));
    this.useCount++;
    insert(ofBinding, identity, attrs.namespace, key, {
      bindingUid: uid,
      bindingKind: binding.kind,
      bindingNamespace: binding.namespace,
      bindingName: binding.name,
      roleKind: String(binding.roleRef?.kind ?? ''),
      roleName: String(binding.roleRef?.name ?? ''),
      ruleIndex: identity.index,
      ruleHash: identity.hash,
      rule: identity.rule,
      ...attributesOf(attrs),
      count: 1,
      first: now,
      last: now,
    });
  }

  denied(attrs: AuthorizationAttributes, now: number): void {
    const user = attrs.user.username;
    const key = attributeKey(attrs);
    const held = lookup(this.denials, user, attrs.namespace, key);
    if (held) {
      held.count++;
      held.last = now;
      return;
    }
    if (this.denialCount >= this.limits.maxDenials) return recordRuleUsageDrop('denied', 'total');
    const ofUser = this.denialsPerUser.get(user) ?? 0;
    if (ofUser >= this.limits.maxDenialsPerUser) return recordRuleUsageDrop('denied', 'per-user');
    this.denialsPerUser.set(user, ofUser + 1);
    this.denialCount++;
    insert(this.denials, user, attrs.namespace, key, { user, ...attributesOf(attrs), count: 1, first: now, last: now });
  }

  /** Hands over everything recorded so far and starts afresh. */
  take(): { uses: RuleUse[]; denials: Denial[] } {
    const taken = { uses: this.allUses(), denials: [...values(this.denials)] };
    this.uses = new Map();
    this.useCount = 0;
    this.denials = new Map();
    this.denialCount = 0;
    this.denialsPerUser = new Map();
    return taken;
  }

  /** Puts back what a flush could not write (beyond the bounds if need be: it was held already). */
  restore(taken: { uses: RuleUse[]; denials: Denial[] }): void {
    for (const use of taken.uses) {
      let ofBinding = this.uses.get(use.bindingUid);
      if (!ofBinding) this.uses.set(use.bindingUid, (ofBinding = new Map() as Nested<RuleIdentity, RuleUse>));
      // Taken records are keyed again by their hash: the rule object they came from may be gone.
      const identity = this.restoredIdentity(use);
      if (mergeInto(ofBinding, identity, use.namespace, keyOfAttributes(use), use)) this.useCount++;
    }
    for (const denial of taken.denials) {
      if (mergeInto(this.denials, denial.user, denial.namespace, keyOfAttributes(denial), denial)) {
        this.denialCount++;
        this.denialsPerUser.set(denial.user, (this.denialsPerUser.get(denial.user) ?? 0) + 1);
      }
    }
  }

  /** Copies of what is held now (a read adds them to the flushed records). */
  pending(): { uses: RuleUse[]; denials: Denial[] } {
    return { uses: this.allUses().map((u) => ({ ...u })), denials: [...values(this.denials)].map((d) => ({ ...d })) };
  }

  /** A deleted binding's records go (its uid never grants again). */
  forgetBinding(uid: string): void {
    const ofBinding = this.uses.get(uid);
    if (!ofBinding) return;
    for (const _ of values(ofBinding)) this.useCount--;
    this.uses.delete(uid);
  }

  get size(): { uses: number; denials: number } {
    return { uses: this.useCount, denials: this.denialCount };
  }

  /** Every held rule use, one per (binding, rule hash, attributes): records of two objects of one rule are summed. */
  private allUses(): RuleUse[] {
    const byKey = new Map<string, RuleUse>();
    for (const ofBinding of this.uses.values()) {
      for (const use of values(ofBinding)) {
        const key = ruleUseKey(use);
        const held = byKey.get(key);
        if (!held) byKey.set(key, use);
        else {
          held.count += use.count;
          held.first = Math.min(held.first, use.first);
          held.last = Math.max(held.last, use.last);
        }
      }
    }
    return [...byKey.values()];
  }

  /** An identity for records put back (keyed by hash, so they merge with each other). */
  private readonly restored = new Map<string, RuleIdentity>();
  private restoredIdentity(use: RuleUse): RuleIdentity {
    let identity = this.restored.get(use.ruleHash);
    if (!identity) this.restored.set(use.ruleHash, (identity = { index: use.ruleIndex, hash: use.ruleHash, rule: use.rule }));
    return identity;
  }

  private identityOf(rule: PolicyRule, binding: { roleRef?: RoleRef; namespace: string }): RuleIdentity {
    let identity = this.identities.get(rule);
    if (!identity) {
      const rules = binding.roleRef ? this.roles.rulesOfRoleRef(binding.roleRef, binding.namespace).rules : undefined;
      identity = { index: rules ? rules.indexOf(rule) : -1, hash: ruleHash(rule), rule: copyRule(rule) };
      this.identities.set(rule, identity);
    }
    return identity;
  }
}

/** Adds `record` to the one held under its keys; true when it was new. */
function mergeInto<K, T extends Counted>(records: Nested<K, T>, outer: K, namespace: string, key: string, record: T): boolean {
  const held = lookup(records, outer, namespace, key);
  if (!held) {
    insert(records, outer, namespace, key, { ...record });
    return true;
  }
  held.count += record.count;
  held.first = Math.min(held.first, record.first);
  held.last = Math.max(held.last, record.last);
  return false;
}
