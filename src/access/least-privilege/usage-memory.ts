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

/** The binding a rule was used through, and the role it names. */
export interface RuleOrigin {
  bindingUid: string;
  bindingKind: GrantingBinding['kind'];
  bindingNamespace: string;
  bindingName: string;
  roleKind: string;
  roleName: string;
}

/** One rule of one binding and the concrete attributes it allowed. */
export interface RuleUse extends RuleOrigin, UsedAttributes, Counted {
  /** The rule's index in its role when first recorded (-1 when the role had changed already). */
  ruleIndex: number;
  ruleHash: string;
  rule: PolicyRule;
  /**
   * The user, when the binding names a Group or several subjects (so a member's own use is
   * known); '' when it names only the caller, and for the default policy's bindings.
   */
  user: string;
}

/** Attributes the chain refused one user. */
export interface Denial extends UsedAttributes, Counted {
  user: string;
}

/** The memory bounds, per replica and flush interval (memory is emptied at every flush). */
export interface UsageLimits {
  /** Distinct (binding, rule, attributes) records. */
  maxRuleUses: number;
  /** Distinct records of one binding: one binding used in a million namespaces cannot fill the memory for the others. */
  maxRuleUsesPerBinding: number;
  /** Distinct (user, attributes) refusals. */
  maxDenials: number;
  /** Distinct refusals of one user: one noisy caller cannot fill the memory for the others. */
  maxDenialsPerUser: number;
}

export const DEFAULT_USAGE_LIMITS: UsageLimits = { maxRuleUses: 10_000, maxRuleUsesPerBinding: 2_000, maxDenials: 10_000, maxDenialsPerUser: 100 };

/** What the memory needs of the policy index: the rules a binding's roleRef resolves to. */
export interface RoleRules {
  rulesOfRoleRef(roleRef: RoleRef, bindingNamespace: string): RoleResolution;
}

interface RuleIdentity {
  index: number;
  hash: string;
  rule: PolicyRule;
}

/** Bindings of the default policy carry it: their grants through groups (system:authenticated...) are not recorded per user. */
const BOOTSTRAPPING_LABEL = 'platform.io/bootstrapping';

const SEP = '\u0000';

function attributesOf(attrs: AuthorizationAttributes): UsedAttributes {
  return attrs.isResourceRequest
    ? { verb: attrs.verb, apiGroup: attrs.apiGroup, resource: attrs.resource, subresource: attrs.subresource, namespace: attrs.namespace, nonResourceURL: '' }
    : { verb: attrs.verb, apiGroup: '', resource: '', subresource: '', namespace: '', nonResourceURL: attrs.path };
}

/**
 * Records by namespace, then resource (or non-resource URL), then a short list searched by
 * verb, group and subresource: a decision already seen builds no string and allocates
 * nothing (a key string per decision, built and hashed, cost more than the decision).
 */
type ByAttributes<T> = Map<string, Map<string, T[]>>;

const namespaceOf = (attrs: AuthorizationAttributes) => (attrs.isResourceRequest ? attrs.namespace : '');
const resourceKeyOf = (attrs: AuthorizationAttributes) => (attrs.isResourceRequest ? attrs.resource : attrs.path);
const usedNamespace = (u: UsedAttributes) => (u.nonResourceURL ? '' : u.namespace);
const usedResourceKey = (u: UsedAttributes) => (u.nonResourceURL ? u.nonResourceURL : u.resource);

/** The record of a list that has these attributes (same namespace and resource already). */
function find<T extends UsedAttributes>(list: readonly T[] | undefined, attrs: AuthorizationAttributes, user?: string): T | undefined {
  if (!list) return undefined;
  for (const r of list) {
    if (r.verb !== attrs.verb || (user !== undefined && (r as T & { user: string }).user !== user)) continue;
    if (attrs.isResourceRequest ? r.apiGroup === attrs.apiGroup && r.subresource === attrs.subresource && !r.nonResourceURL : r.nonResourceURL !== '') return r;
  }
  return undefined;
}

function add<T extends UsedAttributes>(records: ByAttributes<T>, record: T): void {
  const namespace = usedNamespace(record);
  let byResource = records.get(namespace);
  if (!byResource) records.set(namespace, (byResource = new Map<string, T[]>()));
  const key = usedResourceKey(record);
  const list = byResource.get(key);
  if (list) list.push(record);
  else byResource.set(key, [record]);
}

function* values<T>(records: ByAttributes<T>): Generator<T> {
  for (const byResource of records.values()) for (const list of byResource.values()) yield* list;
}

/** What a slot holds per attributes: the binding and rule are the slot's, added when records are taken. */
type HeldUse = UsedAttributes & Counted & { user: string };

/**
 * One rule of one binding (object) as the memory holds it: what it records is made once, when
 * the rule first allows through the binding, never per decision.
 */
interface RuleSlot extends RuleOrigin {
  identity: RuleIdentity;
  /**
   * Whether uses are recorded per user: when the binding names a Group or several subjects (a
   * member's own use is then known), except the default policy's bindings (system:authenticated...).
   */
  byUser: boolean;
  /** Its records while few (searched in order); `records` indexes them once there are more. */
  few: HeldUse[];
  records: ByAttributes<HeldUse> | undefined;
  /** Whether it holds records now (listed in `active`). */
  active: boolean;
}

/** Up to this many records a slot is searched in order: cheaper than two map lookups. */
const FEW = 8;

/** The record of a slot with these attributes (and user). */
function heldIn(slot: RuleSlot, attrs: AuthorizationAttributes, user: string): HeldUse | undefined {
  if (slot.records) return find(slot.records.get(namespaceOf(attrs))?.get(resourceKeyOf(attrs)), attrs, user);
  const namespace = namespaceOf(attrs);
  const resource = resourceKeyOf(attrs);
  for (const r of slot.few) {
    if (r.verb !== attrs.verb || r.user !== user || usedNamespace(r) !== namespace || usedResourceKey(r) !== resource) continue;
    if (attrs.isResourceRequest ? r.apiGroup === attrs.apiGroup && r.subresource === attrs.subresource && !r.nonResourceURL : r.nonResourceURL !== '') return r;
  }
  return undefined;
}

function hold(slot: RuleSlot, record: HeldUse): void {
  if (slot.records) return add(slot.records, record);
  slot.few.push(record);
  if (slot.few.length <= FEW) return;
  slot.records = new Map();
  for (const r of slot.few) add(slot.records, r);
}

function* slotRecords(slot: RuleSlot): Generator<HeldUse> {
  if (slot.records) yield* values(slot.records);
  else yield* slot.few;
}

/** The slots of one binding object, by rule object. */
interface BindingSlots {
  binding: GrantingBinding;
  byRule: Map<PolicyRule, RuleSlot>;
}

export const ruleUseKey = (u: Pick<RuleUse, 'bindingUid' | 'ruleHash' | 'user'> & UsedAttributes) =>
  [u.bindingUid, u.ruleHash, u.user, u.verb, u.apiGroup, u.resource, u.subresource, u.namespace, u.nonResourceURL].join(SEP);
export const denialKey = (d: Pick<Denial, 'user'> & UsedAttributes) => [d.user, d.verb, d.apiGroup, d.resource, d.subresource, d.namespace, d.nonResourceURL].join(SEP);

/**
 * Rule-level usage and refused attributes of one replica since its last flush, in memory.
 * Called on the decision path: a decision already seen costs two map lookups for its binding
 * and rule, a short search for its attributes (two more map lookups once a rule has many), and
 * two field writes, with no string built; a rule's index and hash are computed once per rule
 * object of the policy index.
 *
 * Bounded: resource names are never recorded (a million names are one record), and at most
 * `maxRuleUses` (`maxRuleUsesPerBinding` per binding) and `maxDenials` distinct records
 * (`maxDenialsPerUser` per user) are held
 * between two flushes. When a bound is reached, new distinct records are dropped first
 * (counted in access_rule_usage_dropped_total); records already held keep counting, and the
 * binding usage still counts every grant.
 */
export class UsageMemory implements DecisionDetailSink {
  /** By binding uid (the granting object of the policy index, replaced when it changes), then rule object. */
  private slots = new Map<string, BindingSlots>();
  /** The slots holding records now. */
  private active: RuleSlot[] = [];
  /** Records a failed flush put back, by key (their binding object may be gone). */
  private restored = new Map<string, RuleUse>();
  private useCount = 0;
  private usesPerBinding = new Map<string, number>();
  /** By user, then namespace and attributes. */
  private denials = new Map<string, ByAttributes<Denial>>();
  private denialCount = 0;
  private denialsPerUser = new Map<string, number>();
  private readonly identities = new WeakMap<PolicyRule, RuleIdentity>();

  constructor(
    private readonly roles: RoleRules,
    private readonly limits: UsageLimits = DEFAULT_USAGE_LIMITS,
  ) {}

  allowed(result: AuthorizationResult, attrs: AuthorizationAttributes, now: number): void {
    const binding = result.grantedBy;
    const rule = result.grantedByRule;
    if (!binding || !rule) return;
    const uid = binding.uid;
    let ofBinding = this.slots.get(uid);
    // An updated binding is a new object: its records start in new slots (summed at the flush).
    if (!ofBinding || ofBinding.binding !== binding) this.slots.set(uid, (ofBinding = { binding, byRule: new Map() }));
    let slot = ofBinding.byRule.get(rule);
    if (!slot) ofBinding.byRule.set(rule, (slot = this.slotOf(binding, rule)));
    const user = slot.byUser ? attrs.user.username : '';
    const held = heldIn(slot, attrs, user);
    if (held) {
      held.count++;
      held.last = now;
      return;
    }
    if (this.useCount >= this.limits.maxRuleUses) return recordRuleUsageDrop('allowed', 'total');
    const ofThisBinding = this.usesPerBinding.get(uid) ?? 0;
    if (ofThisBinding >= this.limits.maxRuleUsesPerBinding) return recordRuleUsageDrop('allowed', 'per-binding');
    this.usesPerBinding.set(uid, ofThisBinding + 1);
    this.useCount++;
    hold(slot, {
      user,
      // One literal of one shape (no spread): records stay fast objects.
      verb: attrs.verb,
      apiGroup: attrs.isResourceRequest ? attrs.apiGroup : '',
      resource: attrs.isResourceRequest ? attrs.resource : '',
      subresource: attrs.isResourceRequest ? attrs.subresource : '',
      namespace: attrs.isResourceRequest ? attrs.namespace : '',
      nonResourceURL: attrs.isResourceRequest ? '' : attrs.path,
      count: 1,
      first: now,
      last: now,
    });
    if (!slot.active) {
      slot.active = true;
      this.active.push(slot);
    }
  }

  denied(attrs: AuthorizationAttributes, now: number): void {
    const user = attrs.user.username;
    let ofUser = this.denials.get(user);
    const held = ofUser && find(ofUser.get(namespaceOf(attrs))?.get(resourceKeyOf(attrs)), attrs);
    if (held) {
      held.count++;
      held.last = now;
      return;
    }
    if (this.denialCount >= this.limits.maxDenials) return recordRuleUsageDrop('denied', 'total');
    const heldOfUser = this.denialsPerUser.get(user) ?? 0;
    if (heldOfUser >= this.limits.maxDenialsPerUser) return recordRuleUsageDrop('denied', 'per-user');
    this.denialsPerUser.set(user, heldOfUser + 1);
    this.denialCount++;
    if (!ofUser) this.denials.set(user, (ofUser = new Map<string, Map<string, Denial[]>>()));
    add(ofUser, { user, ...attributesOf(attrs), count: 1, first: now, last: now });
  }

  /** Hands over everything recorded so far and starts afresh. */
  take(): { uses: RuleUse[]; denials: Denial[] } {
    const taken = { uses: this.allUses(), denials: this.allDenials() };
    for (const slot of this.active) {
      slot.few = [];
      slot.records = undefined;
      slot.active = false;
    }
    this.active = [];
    this.restored = new Map();
    this.useCount = 0;
    this.usesPerBinding = new Map();
    this.denials = new Map();
    this.denialCount = 0;
    this.denialsPerUser = new Map();
    return taken;
  }

  /** Puts back what a flush could not write (beyond the bounds if need be: it was held already). */
  restore(taken: { uses: RuleUse[]; denials: Denial[] }): void {
    for (const use of taken.uses) {
      const key = ruleUseKey(use);
      const held = this.restored.get(key);
      if (held) mergeCounts(held, use);
      else {
        this.restored.set(key, { ...use });
        this.useCount++;
      }
    }
    for (const denial of taken.denials) {
      let ofUser = this.denials.get(denial.user);
      if (!ofUser) this.denials.set(denial.user, (ofUser = new Map<string, Map<string, Denial[]>>()));
      const held = ofUser.get(usedNamespace(denial))?.get(usedResourceKey(denial))?.find((d) => denialKey(d) === denialKey(denial));
      if (held) mergeCounts(held, denial);
      else {
        add(ofUser, { ...denial });
        this.denialCount++;
        this.denialsPerUser.set(denial.user, (this.denialsPerUser.get(denial.user) ?? 0) + 1);
      }
    }
  }

  /** Copies of what is held now (a read adds them to the flushed records). */
  pending(): { uses: RuleUse[]; denials: Denial[] } {
    return { uses: this.allUses().map((u) => ({ ...u })), denials: this.allDenials().map((d) => ({ ...d })) };
  }

  /** A deleted binding's records go (its uid never grants again). */
  forgetBinding(uid: string): void {
    this.active = this.active.filter((slot) => {
      if (slot.bindingUid !== uid) return true;
      for (const _ of slotRecords(slot)) this.useCount--;
      slot.few = [];
      slot.records = undefined;
      slot.active = false;
      return false;
    });
    this.slots.delete(uid);
    this.usesPerBinding.delete(uid);
    for (const [key, use] of this.restored) {
      if (use.bindingUid !== uid) continue;
      this.restored.delete(key);
      this.useCount--;
    }
  }

  get size(): { uses: number; denials: number } {
    return { uses: this.useCount, denials: this.denialCount };
  }

  private allDenials(): Denial[] {
    const all: Denial[] = [];
    for (const ofUser of this.denials.values()) all.push(...values(ofUser));
    return all;
  }

  /** Every held rule use (new objects), one per key: records of two objects of one binding and rule (an updated binding) are summed. */
  private allUses(): RuleUse[] {
    const byKey = new Map<string, RuleUse>();
    const merge = (use: RuleUse) => {
      const key = ruleUseKey(use);
      const held = byKey.get(key);
      if (!held) byKey.set(key, use);
      else mergeCounts(held, use);
    };
    for (const slot of this.active) {
      const { bindingUid, bindingKind, bindingNamespace, bindingName, roleKind, roleName, identity } = slot;
      const ofRule = { bindingUid, bindingKind, bindingNamespace, bindingName, roleKind, roleName, ruleIndex: identity.index, ruleHash: identity.hash, rule: identity.rule };
      for (const held of slotRecords(slot)) merge({ ...ofRule, ...held });
    }
    // Copies: merging must not change what is held (a read's pending() comes before the flush's take()).
    for (const use of this.restored.values()) merge({ ...use });
    return [...byKey.values()];
  }

  private slotOf(binding: GrantingBinding & { roleRef?: RoleRef; object?: { metadata?: { labels?: Record<string, string> }; subjects?: Array<{ kind?: string }> } }, rule: PolicyRule): RuleSlot {
    // The policy index's bindings carry their object.
    const subjects = Array.isArray(binding.object?.subjects) ? binding.object.subjects : [];
    return {
      bindingUid: binding.uid,
      bindingKind: binding.kind,
      bindingNamespace: binding.namespace,
      bindingName: binding.name,
      roleKind: String(binding.roleRef?.kind ?? ''),
      roleName: String(binding.roleRef?.name ?? ''),
      identity: this.identityOf(rule, binding),
      byUser: !binding.object?.metadata?.labels?.[BOOTSTRAPPING_LABEL] && (subjects.length > 1 || subjects.some((s) => s.kind === 'Group')),
      few: [],
      records: undefined,
      active: false,
    };
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

function mergeCounts(held: Counted, more: Counted): void {
  held.count += more.count;
  held.first = Math.min(held.first, more.first);
  held.last = Math.max(held.last, more.last);
}
