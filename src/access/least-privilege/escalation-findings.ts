import { RoleBinding, Subject } from '../../apis/rbac/types';
import { EscalationPath, PathStep } from '../escalation-paths/escalation-path-types';
import { bindingUsageName } from '../binding-usage-names';
import { AccessFinding, findingName } from './finding-kind';

/** A subject of the policy and its shortest path to cluster-admin (with at least one step). */
export interface SubjectPath {
  subject: Subject;
  path: EscalationPath;
}

type BindingRef = AccessFinding['bindingRef'];

/** One step in words: `actor --capability--> what it yields`. */
function summarise(step: PathStep): string {
  const yields = step.yields.clusterRole ? `ClusterRole ${step.yields.clusterRole}` : step.yields.impersonationMode ? `${step.yields.user} (${step.yields.impersonationMode} mode)` : step.yields.user;
  return `--${step.capability}--> ${yields}`;
}

const describeBinding = (b: BindingRef) => (b.namespace ? `RoleBinding ${b.namespace}/${b.name}` : `ClusterRoleBinding ${b.name}`);

/**
 * `PathToClusterAdmin` findings: each subject with a path to cluster-admin that does not hold it
 * itself, about the binding that grants the first step (the cheapest place to cut the path),
 * with the path in words. A path whose first step no RBAC binding grants (the Node authorizer,
 * a webhook), or one a binding of the default policy grants, is left out, as the default
 * policy's bindings are for every finding.
 */
export function escalationPathFindings(
  paths: readonly SubjectPath[],
  bindingOf: (ref: BindingRef) => RoleBinding | undefined,
  isDefaultPolicy: (binding: RoleBinding) => boolean,
  windowStart: string,
): AccessFinding[] {
  const findings: AccessFinding[] = [];
  for (const { subject, path } of paths) {
    const first = path.steps[0];
    if (!first) continue;
    const granting = first.uses.map((u) => u.grantedBy).filter((g) => g.binding && g.role);
    if (!granting.length) continue;
    const { binding, role } = granting[0];
    const bindingRef = { kind: binding!.kind as BindingRef['kind'], ...(binding!.namespace ? { namespace: binding!.namespace } : {}), name: binding!.name };
    const object = bindingOf(bindingRef);
    if (!object || isDefaultPolicy(object)) continue;
    const summary = `${path.subject} ${path.steps.map(summarise).join(' ')}`;
    const where = describeBinding(bindingRef);
    const others = [...new Set(granting.slice(1).map((g) => describeBinding(g.binding as BindingRef)))].filter((b) => b !== where);
    const subjects = Array.isArray(object.subjects) ? object.subjects : [];
    const permission = first.uses[0].permission;
    const what = `${permission.verb} ${permission.resource}${permission.subresource ? `/${permission.subresource}` : ''}${permission.name ? ` ${permission.name}` : ''}${permission.namespace ? ` in ${permission.namespace}` : ''}`;
    findings.push({
      metadata: { name: findingName('PathToClusterAdmin', bindingUsageName(bindingRef.kind, bindingRef.namespace ?? '', bindingRef.name), subject) },
      type: 'PathToClusterAdmin',
      bindingRef,
      roleRef: { kind: role!.kind, name: role!.name },
      subject: { ...subject },
      message: `${path.subject} can reach cluster-admin in ${path.steps.length} step${path.steps.length === 1 ? '' : 's'}: ${summary}; the first step (${first.capability}) is granted by ${where}${others.length ? ` and ${others.join(', ')}` : ''}.`,
      escalationPath: summary,
      windowStart,
      suggestedFix: {
        description: `Remove the subject from ${where}, or narrow ${role!.kind} ${role!.name} so that it no longer grants ${what}${others.length ? ` (the step also needs ${others.join(', ')}: cutting either is enough)` : ''}.`,
        ...(subjects.length === 1 ? { command: bindingRef.namespace ? `kubectl delete rolebinding -n ${bindingRef.namespace} ${bindingRef.name}` : `kubectl delete clusterrolebinding ${bindingRef.name}` } : {}),
      },
    });
  }
  return findings;
}
