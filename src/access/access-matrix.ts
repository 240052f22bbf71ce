import { aggregateErrors } from '../apimachinery/aggregate-errors';
import { AuthorizationAttributes } from '../authorization/authorizer';
import { resourceReviewAttributes } from '../reviews/access-review-attributes';
import { AccessAnalyzer } from './access-analyzer';
import { Subject } from '../apis/rbac/types';
import { AccessMatrixReviewSpec, AccessMatrixReviewStatus, MatrixBlockedSubject, MatrixGrant, MatrixResource, MatrixSubjectFilter } from './access-matrix-types';

/**
 * The matrix of one namespace: who-can asked once per cell (resource and verb), exactly as a
 * LocalResourceAccessReview of that cell is answered, then gathered by binding. A binding's
 * subjects are the same in every cell unless a guardrail blocks some of them in some cells, so
 * grants are keyed by binding and subject set: one entry per binding in the usual case.
 */
export function accessMatrix(analyzer: AccessAnalyzer, namespace: string, spec: AccessMatrixReviewSpec): AccessMatrixReviewStatus {
  const verbs = spec.verbs ?? [];
  // By binding; a binding appears once per distinct subject set (a guardrail can block some subjects in some cells).
  const grants = new Map<string, Entry[]>();
  const blocked: MatrixBlockedSubject[] = [];
  const errors = new Set<string>();
  let incomplete = false;
  const kept = subjectsKept(spec.subjectFilter);
  for (const resource of spec.resources ?? []) {
    const cell = resourceOf(resource);
    const cellKey = `${cell.group ?? ''}\u0000${cell.resource ?? ''}\u0000${cell.subresource ?? ''}`;
    for (const verb of verbs) {
      const answer = analyzer.whoCan(cellAttributes(namespace, resource, verb));
      incomplete ||= answer.incomplete;
      if (answer.evaluationError) errors.add(answer.evaluationError);
      for (const b of answer.blocked ?? []) if (kept({ kind: b.kind, name: b.name })) blocked.push({ ...b, ...cell, verb });
      for (const found of answer.grants) {
        const grant = { ...found, subjects: found.subjects.filter(kept) };
        if (!grant.subjects.length) continue;
        const bindingKey = `${grant.binding.kind === 'ClusterRoleBinding' ? 0 : 1}\u0000${grant.binding.namespace ?? ''}\u0000${grant.binding.name}`;
        let entries = grants.get(bindingKey);
        if (!entries) grants.set(bindingKey, (entries = []));
        let entry = entries.find((e) => sameSubjects(e.grant.subjects, grant.subjects));
        if (!entry) {
          entry = { sortKey: `${bindingKey}\u0000${String(entries.length).padStart(6, '0')}`, grant: { binding: grant.binding, role: grant.role, subjects: grant.subjects, resources: [] }, cells: new Map() };
          entries.push(entry);
        }
        let granted = entry.cells.get(cellKey);
        if (!granted) {
          granted = { ...cell, verbs: [] };
          entry.cells.set(cellKey, granted);
          entry.grant.resources.push(granted);
        }
        granted.verbs.push(verb);
      }
    }
  }
  const sorted = [...grants.values()].flat().sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
  return {
    grants: sorted.map((e) => e.grant),
    ...(blocked.length ? { blocked } : {}),
    incomplete,
    ...(errors.size ? { evaluationError: aggregateErrors([...errors]) } : {}),
  };
}

interface Entry {
  sortKey: string;
  grant: MatrixGrant;
  cells: Map<string, MatrixResource & { verbs: string[] }>;
}

function sameSubjects(a: readonly Subject[], b: readonly Subject[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (a[i].kind !== b[i].kind || a[i].name !== b[i].name || (a[i].namespace ?? '') !== (b[i].namespace ?? '')) return false;
  }
  return true;
}

/** The filter as a test of one subject; who-can names service accounts as system:serviceaccount:<namespace>:<name>. */
function subjectsKept(filter: MatrixSubjectFilter | undefined): (s: Pick<Subject, 'kind' | 'name' | 'namespace'>) => boolean {
  const kind = filter?.kind;
  const text = filter?.nameContains;
  if (!kind && !text) return () => true;
  return (s) => {
    const serviceAccount = s.kind === 'ServiceAccount' || (s.kind === 'User' && s.name.startsWith('system:serviceaccount:'));
    if (kind && (kind === 'ServiceAccount' ? !serviceAccount : s.kind !== kind || serviceAccount)) return false;
    const name = s.kind === 'ServiceAccount' ? `system:serviceaccount:${s.namespace ?? ''}:${s.name}` : s.name;
    return !text || name.includes(text);
  };
}

function resourceOf(r: MatrixResource): MatrixResource {
  return { group: r.group ?? '', resource: r.resource ?? '', ...(r.subresource ? { subresource: r.subresource } : {}) };
}

/** The attributes a LocalResourceAccessReview of the cell is answered with (the subject is not asked about). */
function cellAttributes(namespace: string, r: MatrixResource, verb: string): AuthorizationAttributes {
  return resourceReviewAttributes({ username: '', groups: [] }, { ...r, verb, namespace }, { authorizeWithSelectors: false });
}
