import { UserInfo } from '../apimachinery/user-info';
import { RoleBinding, Subject } from '../apis/rbac/types';
import { AuthorizationAttributes, Authorizer } from '../authorization/authorizer';
import { IndexedBinding } from '../authorization/rbac/policy-index';
import { RbacAuthorizer } from '../authorization/rbac/rbac-authorizer';
import { fileSubject, SubjectKey } from '../authorization/rbac/subjects';
import { nonResourceAttributes, resourceAttributes } from '../authorization/request-attributes';
import { AccessIndex, resourceTokens } from './access-index';
import { guardrailDenial, identityOfSubjectKey } from './guardrail-blocking';
import { CandidatePolicy } from './policy-change-candidate';
import { subjectOfKey, userOfKey } from './policy-change-diff';
import { AccessQuestion, AssertionCounterexample, AssertionResult, PolicyAssertion } from './policy-change-types';

/**
 * The statements of spec.assertions, checked against the candidate policy (the current one
 * when there are no changes) by the RBAC authorizer itself over that policy: `can` and
 * `cannot` are SubjectAccessReviews of one subject; `onlySubjects` is a ResourceAccessReview
 * (candidates from the reverse indexes and the overlay, each confirmed by the authorizer)
 * compared with the expected set. The chain's guardrails before RBAC take away what they
 * deny, asked as for who-can: a denied `can` fails naming the guardrail, a denied subject is
 * not among `onlySubjects`.
 */

/** The key a subject is found under (validation has refused malformed ones). */
export function keyOfSubject(subject: Subject): SubjectKey {
  return fileSubject(subject, subject.namespace ?? '')[0]?.key ?? `u:${subject.name}`;
}

function attributesFor(user: UserInfo, q: AccessQuestion): AuthorizationAttributes {
  if (q.nonResourceURL) return nonResourceAttributes(user, q.verb ?? '', q.nonResourceURL);
  return resourceAttributes({
    user,
    verb: q.verb ?? '',
    apiGroup: q.apiGroup ?? '',
    apiVersion: '*',
    resource: q.resource ?? '',
    subresource: q.subresource ?? '',
    namespace: q.namespace ?? '',
    name: q.name ?? '',
  });
}

/** `get pods/log "x" in prod`, `get /healthz`, as results describe an action. */
export function describeQuestion(q: AccessQuestion): string {
  if (q.nonResourceURL) return `${q.verb} ${q.nonResourceURL}`;
  const resource = `${q.resource}${q.subresource ? `/${q.subresource}` : ''}${q.apiGroup ? `.${q.apiGroup}` : ''}`;
  return `${q.verb} ${resource}${q.name ? ` "${q.name}"` : ''}${q.namespace ? ` in namespace ${q.namespace}` : ' cluster-wide'}`;
}

const describeSubject = (s: Subject) => `${s.kind} ${s.kind === 'ServiceAccount' ? `${s.namespace}/` : ''}${s.name}`;

function grantOf(binding: IndexedBinding): Pick<AssertionCounterexample, 'binding' | 'role'> {
  return {
    binding: binding.kind === 'RoleBinding' ? { kind: binding.kind, namespace: binding.namespace, name: binding.name } : { kind: binding.kind, name: binding.name },
    role: { kind: String(binding.roleRef?.kind ?? ''), name: String(binding.roleRef?.name ?? '') },
  };
}

export class AssertionChecker {
  private readonly authorizer: RbacAuthorizer;

  constructor(
    private readonly candidate: CandidatePolicy,
    private readonly access: AccessIndex,
    private readonly guardrails: readonly Authorizer[] = [],
  ) {
    this.authorizer = new RbacAuthorizer('rbac', candidate);
  }

  check(assertions: readonly PolicyAssertion[]): AssertionResult[] {
    return assertions.map((assertion, index) => ({ index, ...(assertion.name ? { name: assertion.name } : {}), ...this.checkOne(assertion) }));
  }

  private checkOne(a: PolicyAssertion): Omit<AssertionResult, 'index' | 'name'> {
    if (a.can || a.cannot) {
      const q = (a.can ?? a.cannot)!;
      const subject = q.subject!;
      const key = keyOfSubject(subject);
      const result = this.authorizer.authorize(attributesFor(userOfKey(key), q));
      const blocker = result.decision === 'Allow' ? this.guardrailDenying(key, q) : undefined;
      const allowed = result.decision === 'Allow' && !blocker;
      const action = describeQuestion(q);
      if (a.can) {
        if (allowed) return { passed: true, message: `${describeSubject(subject)} can ${action}` };
        if (blocker) {
          return {
            passed: false,
            message: `${describeSubject(subject)} cannot ${action}: access guardrail "${blocker}" denies it`,
            counterexamples: [{ subject, ...(result.grantedBy instanceof IndexedBinding ? grantOf(result.grantedBy) : {}), guardrail: blocker }],
          };
        }
        return { passed: false, message: `${describeSubject(subject)} cannot ${action}`, counterexamples: [{ subject }] };
      }
      if (blocker) return { passed: true, message: `${describeSubject(subject)} cannot ${action}: access guardrail "${blocker}" denies it` };
      if (!allowed) return { passed: true, message: `${describeSubject(subject)} cannot ${action}` };
      const granted = result.grantedBy instanceof IndexedBinding ? grantOf(result.grantedBy) : {};
      return { passed: false, message: `${describeSubject(subject)} can ${action}`, counterexamples: [{ subject, ...granted }] };
    }
    const q = a.onlySubjects!;
    const expected = new Map((q.subjects ?? []).map((s) => [keyOfSubject(s), s]));
    const allowed = this.whoCan(q);
    const extra = [...allowed].filter(([key]) => !expected.has(key)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const missing = [...expected].filter(([key]) => !allowed.has(key));
    const action = describeQuestion(q);
    if (!extra.length && !missing.length) return { passed: true, message: `only the ${expected.size} expected subjects can ${action}` };
    const parts = [
      ...(extra.length ? [`also allowed: ${extra.map(([k]) => describeSubject(subjectOfKey(k))).join(', ')}`] : []),
      ...(missing.length ? [`not allowed: ${missing.map(([, s]) => describeSubject(s)).join(', ')}`] : []),
    ];
    return {
      passed: false,
      message: `${action}: ${parts.join('; ')}`,
      counterexamples: [...extra.map(([key, binding]) => ({ subject: subjectOfKey(key), ...(binding ? grantOf(binding) : {}) })), ...missing.map(([, subject]) => ({ subject }))],
    };
  }

  /** Every subject key RBAC allows the action in the candidate state, with the binding that allows it. */
  private whoCan(q: AccessQuestion): Map<SubjectKey, IndexedBinding | undefined> {
    const tokens = q.nonResourceURL ? [AccessIndex.NON_RESOURCE] : resourceTokens(q.resource ?? '', q.subresource ?? '');
    const bindings: RoleBinding[] = [];
    for (const entry of this.access.candidateBindings(q.verb ?? '', tokens, q.nonResourceURL ? '' : (q.namespace ?? ''))) {
      if (!this.candidate.replaces(entry.kind, entry.namespace, entry.name)) bindings.push(entry.object);
    }
    bindings.push(...this.candidate.overlayBindings());
    const keys = new Set<SubjectKey>();
    for (const binding of bindings) {
      const namespace = binding.metadata?.namespace ?? '';
      for (const subject of Array.isArray(binding.subjects) ? binding.subjects : []) for (const filing of fileSubject(subject, namespace)) if (!filing.error) keys.add(filing.key);
    }
    const allowed = new Map<SubjectKey, IndexedBinding | undefined>();
    for (const key of keys) {
      const result = this.authorizer.authorize(attributesFor(userOfKey(key), q));
      if (result.decision === 'Allow' && !this.guardrailDenying(key, q)) allowed.set(key, result.grantedBy instanceof IndexedBinding ? result.grantedBy : undefined);
    }
    return allowed;
  }

  /** The name of the guardrail that denies the subject the action, if one does. */
  private guardrailDenying(key: SubjectKey, q: AccessQuestion): string | undefined {
    if (!this.guardrails.length) return undefined;
    const user = identityOfSubjectKey(key);
    const denied = guardrailDenial(this.guardrails, attributesFor(user, q), user);
    return denied ? (denied.guardrail ?? '') : undefined;
  }
}
