import { CelEnvironment, CelEvaluationError, CelObjectSchema, CelProgram } from '../../cel';
import { aggregateErrors } from '../../apimachinery/aggregate-errors';
import { SubjectAccessReviewSpec } from './subject-access-review';

/** Requirement lists of selectors, as kube's `kubernetes.SelectorRequirement`. */
const SELECTOR_SCHEMA: CelObjectSchema = {
  rawSelector: 'string',
  requirements: 'list<map<string, dyn>>',
};

/**
 * The `request` variable of match conditions: a v1 SubjectAccessReview spec (kube's
 * kubernetes.SubjectAccessReviewSpec). Selector fields exist only with AuthorizeWithSelectors.
 */
export function matchRequestSchema(withSelectors: boolean): CelObjectSchema {
  const resourceAttributes: CelObjectSchema = {
    namespace: 'string',
    verb: 'string',
    group: 'string',
    version: 'string',
    resource: 'string',
    subresource: 'string',
    name: 'string',
  };
  if (withSelectors) {
    resourceAttributes.fieldSelector = SELECTOR_SCHEMA;
    resourceAttributes.labelSelector = SELECTOR_SCHEMA;
  }
  return {
    resourceAttributes,
    nonResourceAttributes: { path: 'string', verb: 'string' },
    user: 'string',
    groups: 'list<string>',
    extra: 'map<string, list<string>>',
    uid: 'string',
  };
}

const environments = new Map<boolean, Promise<CelEnvironment>>();

/** One shared environment per selector setting (creating one is the expensive part). */
export function matchConditionEnvironment(withSelectors: boolean): Promise<CelEnvironment> {
  let env = environments.get(withSelectors);
  if (!env) {
    env = CelEnvironment.create({ variables: { request: { schema: matchRequestSchema(withSelectors) } } });
    environments.set(withSelectors, env);
  }
  return env;
}

/** Compiles one expression as a match condition: it must be boolean. */
export function compileMatchCondition(env: CelEnvironment, expression: string): CelProgram {
  return env.compile(expression, { returnTypes: ['bool'] });
}

/** kube's convertObjectToUnstructured: every string attribute present, even empty ones (guardrail conditions read it too). */
export function requestVariable(spec: SubjectAccessReviewSpec, withSelectors: boolean): Record<string, unknown> {
  const request: Record<string, unknown> = { user: spec.user, groups: spec.groups, uid: spec.uid, extra: spec.extra };
  if (spec.resourceAttributes) {
    const { fieldSelector, labelSelector, ...strings } = spec.resourceAttributes;
    const resourceAttributes: Record<string, unknown> = { ...strings };
    if (withSelectors && fieldSelector) resourceAttributes.fieldSelector = fieldSelector;
    if (withSelectors && labelSelector) resourceAttributes.labelSelector = labelSelector;
    request.resourceAttributes = resourceAttributes;
  }
  if (spec.nonResourceAttributes) request.nonResourceAttributes = { ...spec.nonResourceAttributes };
  return request;
}

export class MatchConditionError extends Error {}

/** The compiled match conditions of one webhook. */
export class MatchConditions {
  constructor(
    private readonly programs: CelProgram[],
    private readonly withSelectors: boolean,
  ) {}

  static async compile(expressions: string[], withSelectors: boolean): Promise<MatchConditions> {
    const env = await matchConditionEnvironment(withSelectors);
    return new MatchConditions(
      expressions.map((e) => compileMatchCondition(env, e)),
      withSelectors,
    );
  }

  get size(): number {
    return this.programs.length;
  }

  /**
   * kube's CELMatcher.Eval: any condition that is false skips the webhook at once; otherwise
   * an error in any of them is the result (all errors, aggregated); all true calls it.
   */
  matches(spec: SubjectAccessReviewSpec): boolean {
    const variables = { request: requestVariable(spec, this.withSelectors) };
    const failures: string[] = [];
    for (const program of this.programs) {
      let value: unknown;
      try {
        value = program.evaluate(variables);
      } catch (err) {
        if (!(err instanceof CelEvaluationError)) throw err;
        failures.push(`cel evaluation error: expression '${program.expression}' resulted in error: ${err.message}`);
        continue;
      }
      if (typeof value !== 'boolean') {
        failures.push(`cel evaluation error: expression '${program.expression}' eval result type should be bool but got ${typeof value}`);
        continue;
      }
      if (!value) return false;
    }
    if (failures.length) throw new MatchConditionError(aggregateErrors(failures));
    return true;
  }
}
