import { FieldError } from '../apimachinery/field-errors';
import { KubeObject } from '../apimachinery/types';
import { ResourceStrategy, ResourceType, StrategyContext } from '../api/schema/resource-type';
import { StructSchema } from '../api/schema/schema';
import { accessExplanationSchema, localResourceAccessReviewSchema, resourceAccessReviewSchema, subjectRulesReviewSchema } from './access-schemas';
import { ACCESS_GROUP, ACCESS_VERSION, AccessExplanation, ResourceAccessReview, SubjectRulesReview } from './access-types';
import {
  validateAccessExplanation,
  validateLocalResourceAccessReview,
  validateResourceAccessReview,
  validateSubjectRulesReview,
} from './access-validation';

/**
 * The four kinds of access.platform.io/v1 as discovery and the generic handlers see them:
 * create only, no Table, JSON and YAML (no protobuf messages: kube has none for them).
 */

function strategy(validate: (obj: KubeObject) => FieldError[], prepareForCreate?: ResourceStrategy['prepareForCreate']): ResourceStrategy {
  return { allowCreateOnUpdate: false, allowUnconditionalUpdate: false, prepareForCreate, validate, validateUpdate: () => [] };
}

function accessType(kind: string, plural: string, namespaced: boolean, schema: StructSchema, kindStrategy: ResourceStrategy): ResourceType {
  return {
    group: ACCESS_GROUP,
    version: ACCESS_VERSION,
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    namespaced,
    verbs: ['create'],
    nameValidator: () => [],
    schema,
    strategy: kindStrategy,
    table: 'none',
  };
}

/** An empty spec.resourceAttributes.namespace takes the request's. */
function defaultNamespace(obj: KubeObject, ctx: StrategyContext): void {
  const attrs = (obj as ResourceAccessReview).spec?.resourceAttributes;
  if (attrs && !attrs.namespace) attrs.namespace = ctx.namespace;
}

export const resourceAccessReviewType = accessType(
  'ResourceAccessReview',
  'resourceaccessreviews',
  false,
  resourceAccessReviewSchema,
  strategy((obj) => validateResourceAccessReview(obj as ResourceAccessReview)),
);

export const localResourceAccessReviewType = accessType(
  'LocalResourceAccessReview',
  'localresourceaccessreviews',
  true,
  localResourceAccessReviewSchema,
  strategy((obj) => validateLocalResourceAccessReview(obj as ResourceAccessReview), defaultNamespace),
);

export const subjectRulesReviewType = accessType(
  'SubjectRulesReview',
  'subjectrulesreviews',
  false,
  subjectRulesReviewSchema,
  strategy((obj) => validateSubjectRulesReview(obj as SubjectRulesReview)),
);

export const accessExplanationType = accessType(
  'AccessExplanation',
  'accessexplanations',
  false,
  accessExplanationSchema,
  strategy((obj) => validateAccessExplanation(obj as AccessExplanation)),
);

/** In the installer's order (sorted by path), which discovery shows. */
export const ACCESS_TYPES = [accessExplanationType, localResourceAccessReviewType, resourceAccessReviewType, subjectRulesReviewType];
