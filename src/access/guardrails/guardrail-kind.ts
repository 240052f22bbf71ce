import { nameIsDNSSubdomain } from '../../apimachinery/validation/names';
import { ALL_STORAGE_VERBS, ResourceStrategy, ResourceType } from '../../runtime/schema/resource-type';
import { ageColumn, nameColumn } from '../../runtime/table/columns';
import { ACCESS_GROUP, ACCESS_VERSION } from '../access-types';
import { accessGuardrailSchema } from './guardrail-schema';
import { AccessGuardrail } from './guardrail-types';
import { ConditionCompiler, validateAccessGuardrail } from './guardrail-validation';

/** A guardrail has no status; failurePolicy defaults to Deny (an expression that errors never allows). */
function prepare(guardrail: AccessGuardrail): void {
  delete guardrail.status;
  const spec = guardrail.spec as unknown;
  if (spec && typeof spec === 'object' && !Array.isArray(spec) && guardrail.spec.failurePolicy === undefined) guardrail.spec.failurePolicy = 'Deny';
}

const list = (values: unknown) => (Array.isArray(values) && values.length ? values.join(',') : '<all>');
const subjectsOf = (g: AccessGuardrail) =>
  Array.isArray(g.spec?.subjects) && g.spec.subjects.length ? g.spec.subjects.map((s) => `${s.kind}/${s.namespace ? `${s.namespace}/` : ''}${s.name}`).join(',') : '<everyone>';

/** AccessGuardrail as discovery, the generic storage and `kubectl get` see it; `compile` checks conditions at write time. */
export function accessGuardrailType(compile: ConditionCompiler): ResourceType<AccessGuardrail> {
  const strategy: ResourceStrategy<AccessGuardrail> = {
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    prepareForCreate: prepare,
    prepareForUpdate: prepare,
    validate: (g) => validateAccessGuardrail(g, compile),
    validateUpdate: (g) => validateAccessGuardrail(g, compile),
  };
  return {
    group: ACCESS_GROUP,
    version: ACCESS_VERSION,
    kind: 'AccessGuardrail',
    listKind: 'AccessGuardrailList',
    plural: 'accessguardrails',
    singular: 'accessguardrail',
    shortNames: ['guardrail'],
    namespaced: false,
    verbs: [...ALL_STORAGE_VERBS],
    nameValidator: nameIsDNSSubdomain,
    schema: accessGuardrailSchema,
    strategy,
    table: {
      columns: [
        nameColumn,
        { name: 'Verbs', type: 'string', description: 'The verbs it denies.', cell: (g) => list(g.spec?.match?.verbs) },
        {
          name: 'Resources',
          type: 'string',
          description: 'The resources (or non-resource URLs) it denies.',
          cell: (g) => (g.spec?.match?.nonResourceURLs?.length ? list(g.spec.match.nonResourceURLs) : list(g.spec?.match?.resources)),
        },
        { name: 'Namespaces', type: 'string', description: 'The namespaces it is limited to.', cell: (g) => (g.spec?.match?.namespaceSelector ? 'selector' : list(g.spec?.match?.namespaces)) },
        { name: 'Subjects', type: 'string', description: 'To whom it applies.', cell: subjectsOf },
        { name: 'Message', type: 'string', description: 'The message of its 403.', cell: (g) => g.spec?.message ?? '', priority: 1 },
        ageColumn,
      ],
    },
  };
}
