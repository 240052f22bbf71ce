import { FieldError, fieldErrors } from '../apimachinery/field-errors';
import { createOnlyType, reviewStrategy } from '../reviews/review-kinds';
import { atomicList, boolean, field, kindSchema, string, struct } from '../runtime/schema/schema';
import { objectMetaSchema } from '../runtime/schema/meta';
import { subjectSchema } from '../rbac/kinds/schemas';
import { bindingReferenceSchema, roleReferenceSchema } from './access-schemas';
import { AccessMatrixReview, DEFAULT_MATRIX_VERBS, MATRIX_SUBJECT_KINDS, MAX_MATRIX_RESOURCES, MAX_MATRIX_VERBS } from './access-matrix-types';
import { ACCESS_GROUP, ACCESS_VERSION } from './access-types';

/**
 * AccessMatrixReview (namespaced, create only): every subject's verbs on the named resources
 * in the review's namespace, each cell with the binding and role that grant it. One question
 * instead of one ResourceAccessReview per cell, answered by the same who-can.
 */

const strings = () => atomicList(string());

const resourceFields = {
  group: field(string(), 'API group of the resource; empty for the core group.'),
  resource: field(string(), 'Resource name (plural), as in ResourceAttributes; `*` asks about rules naming every resource.'),
  subresource: field(string(), 'Subresource, if any (e.g. log for pods/log).'),
};

const matrixResourceSchema = struct(resourceFields, {
  required: ['resource'],
  typeName: 'v1.MatrixResource',
  description: 'MatrixResource is one row of resources of the matrix, named as in ResourceAttributes.',
});

const specSchema = struct(
  {
    resources: field(atomicList(matrixResourceSchema), `The resources asked about, at most ${MAX_MATRIX_RESOURCES}, each once.`),
    verbs: field(strings(), `The verbs asked about, at most ${MAX_MATRIX_VERBS}, each once. Default: ${DEFAULT_MATRIX_VERBS.join(', ')}.`),
    subjectFilter: field(
      struct(
        {
          kind: field(string(), 'Only subjects of this kind: User, Group or ServiceAccount.'),
          nameContains: field(string(), 'Only subjects whose name contains this text (a service account as system:serviceaccount:<namespace>:<name>).'),
        },
        { typeName: 'v1.MatrixSubjectFilter', description: 'MatrixSubjectFilter keeps some subjects of the answer.' },
      ),
      'Keeps only some subjects in the answer (grants left with none are left out), so a client need not receive every subject of the cluster-wide grants.',
    ),
  },
  { required: ['resources'], typeName: 'v1.AccessMatrixReviewSpec', description: 'AccessMatrixReviewSpec names the resources and verbs of the matrix.' },
);

const grantedResourceSchema = struct(
  { ...resourceFields, verbs: field(strings(), 'The verbs of spec.verbs the binding grants on it, in the order of spec.verbs.') },
  { typeName: 'v1.MatrixGrantedResource', description: 'MatrixGrantedResource is a resource and the verbs one binding grants on it.' },
);

const matrixGrantSchema = struct(
  {
    binding: field(bindingReferenceSchema, 'The binding that grants.'),
    role: field(roleReferenceSchema, 'The role whose rules allow.'),
    subjects: field(atomicList(subjectSchema), 'The subjects the binding grants these cells to (malformed subjects and those a guardrail blocks left out).'),
    resources: field(atomicList(grantedResourceSchema), 'The cells: each resource with the verbs granted on it.'),
  },
  {
    typeName: 'v1.MatrixGrant',
    description: 'MatrixGrant is one binding and the cells of the matrix it grants its subjects. A binding appears once per distinct set of subjects (guardrails can block some subjects for some cells).',
  },
);

const blockedSchema = struct(
  {
    kind: field(string(), 'User or Group.'),
    name: field(string(), 'Name of the user (service accounts as system:serviceaccount:<namespace>:<name>) or group.'),
    guardrail: field(string(), 'The AccessGuardrail that denies it.'),
    reason: field(string(), 'The reason the guardrail gives.'),
    ...resourceFields,
    verb: field(string(), 'The verb denied.'),
  },
  { typeName: 'v1.MatrixBlockedSubject', description: 'MatrixBlockedSubject is a cell RBAC grants a subject but an AccessGuardrail denies it.' },
);

const statusSchema = struct(
  {
    grants: field(atomicList(matrixGrantSchema), 'Every binding that grants a cell, cluster-wide bindings first, then by name.'),
    blocked: field(atomicList(blockedSchema), 'Cells RBAC grants but an AccessGuardrail denies, per subject; left out of grants.'),
    incomplete: field(boolean(), 'True when an authorizer of the chain cannot enumerate the subjects it allows; evaluationError names each.'),
    evaluationError: field(string(), 'Why the matrix may be incomplete.'),
  },
  {
    required: ['incomplete'],
    typeName: 'v1.AccessMatrixReviewStatus',
    description: 'AccessMatrixReviewStatus is the matrix as bindings: a subject may do a verb on a resource exactly when a grant lists both (members of system:masters may do everything).',
  },
);

export const accessMatrixReviewSchema = kindSchema(
  objectMetaSchema,
  {
    spec: field(specSchema, 'Spec holds the resources and verbs asked about.'),
    status: field(statusSchema, 'Status is filled in by the server with the grants of each cell.'),
  },
  {
    typeName: 'v1.AccessMatrixReview',
    description:
      'AccessMatrixReview asks, for one namespace, which subjects may perform which verbs on which resources, and through which binding and role: one LocalResourceAccessReview per cell, answered at once.',
  },
);

export function validateAccessMatrixReview(review: AccessMatrixReview): FieldError[] {
  const spec = review.spec ?? {};
  const errs: FieldError[] = [];
  const resources = spec.resources ?? [];
  if (!resources.length) errs.push(fieldErrors.required('spec.resources', 'at least one resource must be named'));
  if (resources.length > MAX_MATRIX_RESOURCES) errs.push(fieldErrors.invalid('spec.resources', resources.length, `must have at most ${MAX_MATRIX_RESOURCES} items`));
  const seen = new Set<string>();
  resources.forEach((r, i) => {
    if (!r.resource) errs.push(fieldErrors.required(`spec.resources[${i}].resource`));
    else if (r.resource.includes('/')) errs.push(fieldErrors.invalid(`spec.resources[${i}].resource`, r.resource, 'name the subresource in subresource'));
    const key = `${r.group ?? ''}/${r.resource ?? ''}/${r.subresource ?? ''}`;
    if (seen.has(key)) errs.push(fieldErrors.duplicate(`spec.resources[${i}]`, r));
    seen.add(key);
  });
  const verbs = spec.verbs ?? [];
  if (verbs.length > MAX_MATRIX_VERBS) errs.push(fieldErrors.invalid('spec.verbs', verbs.length, `must have at most ${MAX_MATRIX_VERBS} items`));
  const seenVerbs = new Set<string>();
  verbs.forEach((verb, i) => {
    if (!verb) errs.push(fieldErrors.required(`spec.verbs[${i}]`));
    else if (seenVerbs.has(verb)) errs.push(fieldErrors.duplicate(`spec.verbs[${i}]`, verb));
    seenVerbs.add(verb);
  });
  const kind = spec.subjectFilter?.kind;
  if (kind && !MATRIX_SUBJECT_KINDS.includes(kind)) errs.push(fieldErrors.notSupported('spec.subjectFilter.kind', kind, MATRIX_SUBJECT_KINDS));
  return errs;
}

export const accessMatrixReviewType = createOnlyType(
  ACCESS_GROUP,
  ACCESS_VERSION,
  'AccessMatrixReview',
  'accessmatrixreviews',
  true,
  accessMatrixReviewSchema,
  reviewStrategy(
    (obj) => validateAccessMatrixReview(obj as AccessMatrixReview),
    (obj) => {
      const spec = ((obj as AccessMatrixReview).spec ??= {});
      if (!spec.verbs?.length) spec.verbs = [...DEFAULT_MATRIX_VERBS];
    },
  ),
);
