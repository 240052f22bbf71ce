import { errors } from '../../apimachinery/errors';
import { fieldErrors } from '../../apimachinery/field-errors';
import { ALL_AUTHENTICATED, SYSTEM_MASTERS, UserInfo } from '../../apimachinery/user-info';
import { bindingWindow, windowState } from '../../apis/rbac/binding-window';
import { GROUP_KIND, RoleBinding, SERVICE_ACCOUNT_KIND, Subject, USER_KIND } from '../../apis/rbac/types';
import { AuthorizationAttributes } from '../../authorization/authorizer';
import { PolicyIndex } from '../../authorization/rbac/policy-index';
import { ruleAllows } from '../../authorization/rbac/rule-matching';
import { serviceAccountUsername } from '../../authorization/rbac/subjects';
import { resourceAttributes } from '../../authorization/request-attributes';
import { AdmissionRequest } from '../../registry/rest/admission';
import { ACCESS_GROUP, ACCESS_VERSION } from '../access-types';
import { GuardrailState } from './guardrail-state.service';
import { AccessGuardrail } from './guardrail-types';

/**
 * Bootstrap safety: a guardrail that would leave no RBAC administrator able to update or
 * delete guardrails is refused (422 on spec.allowLockout) unless it says allowLockout. The
 * administrators are the subjects of active ClusterRoleBindings whose role allows `delete`
 * on accessguardrails (RBAC's own matchers over the live index); system:masters is not
 * one of them, since it is asked before any guardrail and stays the break-glass path. A
 * dry run gets the same answer, so it shows the effect without writing.
 */

/** The identity a binding subject stands for, as a request of theirs would carry it. */
function identityOf(subject: Subject): UserInfo | undefined {
  switch (subject.kind) {
    case USER_KIND:
      return { username: subject.name, groups: [ALL_AUTHENTICATED] };
    case GROUP_KIND:
      return subject.name === SYSTEM_MASTERS ? undefined : { username: `member of group ${subject.name}`, groups: [subject.name, ALL_AUTHENTICATED] };
    case SERVICE_ACCOUNT_KIND:
      if (!subject.namespace) return undefined;
      return {
        username: serviceAccountUsername(subject.namespace, subject.name),
        groups: ['system:serviceaccounts', `system:serviceaccounts:${subject.namespace}`, ALL_AUTHENTICATED],
      };
    default:
      return undefined;
  }
}

const guardrailWrite = (user: UserInfo, verb: string, name: string): AuthorizationAttributes =>
  resourceAttributes({ user, verb, apiGroup: ACCESS_GROUP, apiVersion: ACCESS_VERSION, resource: 'accessguardrails', name });

/** The RBAC administrators of guardrails: identities whose cluster-wide binding allows deleting this one. */
export function guardrailAdministrators(policy: PolicyIndex, name: string): Array<{ subject: Subject; user: UserInfo }> {
  const now = policy.clock.now();
  const found = new Map<string, { subject: Subject; user: UserInfo }>();
  for (const binding of policy.objectsOf('ClusterRoleBinding') as RoleBinding[]) {
    if (windowState(bindingWindow(binding), now) !== 'active') continue;
    const { rules } = policy.rulesOfRoleRef(binding.roleRef, '');
    if (!rules) continue;
    for (const subject of Array.isArray(binding.subjects) ? binding.subjects : []) {
      const user = identityOf(subject);
      if (!user || !rules.some((rule) => ruleAllows(rule, guardrailWrite(user, 'delete', name)))) continue;
      found.set(`${subject.kind}/${subject.namespace ?? ''}/${subject.name}`, { subject, user });
    }
  }
  return [...found.values()];
}

/** The write check of AccessGuardrail creates and updates (dry runs included). */
export function lockoutCheck(state: GuardrailState, policy: PolicyIndex) {
  return async (request: AdmissionRequest): Promise<void> => {
    const guardrail = request.object as AccessGuardrail;
    if (guardrail.spec?.allowLockout === true) return;
    const name = guardrail.metadata?.name ?? '';
    const admins = guardrailAdministrators(policy, name);
    if (admins.length === 0) return; // nobody but system:masters administers guardrails: nobody to lock out
    const next = [...state.all.filter((g) => g.name !== name), state.compileGuardrail(guardrail)].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const lockedOut = (user: UserInfo) =>
      state.decide(guardrailWrite(user, 'delete', name), next).decision === 'Deny' && state.decide(guardrailWrite(user, 'update', name), next).decision === 'Deny';
    if (!admins.every((a) => lockedOut(a.user))) return;
    const who = admins.map((a) => `${a.subject.kind} "${a.subject.namespace ? `${a.subject.namespace}/` : ''}${a.subject.name}"`).join(', ');
    throw errors.invalid('AccessGuardrail', ACCESS_GROUP, name, [
      fieldErrors.forbidden(
        'spec.allowLockout',
        `the guardrails would deny every administrator of guardrails (${who}) updating or deleting guardrails; only system:masters could undo them. Set spec.allowLockout: true to write it anyway`,
      ),
    ]);
  };
}
