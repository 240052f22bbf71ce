import { FieldRequirement, parseFieldSelector } from '../apimachinery/selectors/field-selector';
import { LabelOperator, LabelRequirement, parseLabelSelector, SelectorParseError } from '../apimachinery/selectors/label-selector';
import { goQuote } from '../apimachinery/go-text';
import { isQualifiedName, isValidLabelValue } from '../apimachinery/validation/names';
import { SelectorAttribute } from '../authorization/authorizer';
import { aggregateErrors } from '../apimachinery/aggregate-errors';
import { SelectorAttributes, SelectorRequirement } from './review-types';

/**
 * A review's field or label selector as authorizer attributes, as kube's
 * ResourceAttributesFrom builds them:
 *
 * 1. neither rawSelector nor requirements: no restriction (undefined);
 * 2. rawSelector only: parsed with the same parser as list queries; when it does not parse
 *    the request is unrestricted and the parse error is kept;
 * 3. requirements only: converted one by one; one that cannot be used (unknown operator,
 *    a field selector with several values) is dropped, which only widens the check, and
 *    its error is kept next to the rest;
 * 4. both: refused by validation before this runs.
 *
 * A kept error surfaces in the review's status.evaluationError (see selectorEvaluationErrors).
 */

function parsed<R>(parse: () => R[]): SelectorAttribute<R> | undefined {
  try {
    const requirements = parse();
    return requirements.length ? { requirements } : undefined;
  } catch (err) {
    if (err instanceof SelectorParseError) return { requirements: [], error: err.message };
    throw err;
  }
}

function converted<R>(requirements: SelectorRequirement[], convert: (r: SelectorRequirement) => R | string): SelectorAttribute<R> | undefined {
  const kept: R[] = [];
  const errors: string[] = [];
  for (const requirement of requirements) {
    const result = convert(requirement);
    if (typeof result === 'string') errors.push(result);
    else kept.push(result);
  }
  if (!errors.length) return kept.length ? { requirements: kept } : undefined;
  return { requirements: kept, error: aggregateErrors(errors) };
}

/** kube's fieldSelectorAsSelector: In is `=`, NotIn is `!=`, one value each. */
function fieldRequirement(r: SelectorRequirement): FieldRequirement | string {
  const values = r.values ?? [];
  if (values.length > 1) return 'fieldSelectors do not yet support multiple values';
  switch (r.operator) {
    case 'In':
      return values.length === 1 ? { field: r.key ?? '', operator: 'Equals', value: values[0] } : 'fieldSelectors in must have one value';
    case 'NotIn':
      return values.length === 1 ? { field: r.key ?? '', operator: 'NotEquals', value: values[0] } : 'fieldSelectors not in must have one value';
    case 'Exists':
    case 'DoesNotExist':
      return `fieldSelectors do not yet support ${r.operator}`;
    default:
      return `${goQuote(r.operator ?? '')} is not a valid field selector operator`;
  }
}

const LABEL_OPERATORS: Record<string, LabelOperator> = { In: 'In', NotIn: 'NotIn', Exists: 'Exists', DoesNotExist: 'DoesNotExist' };

/** kube's labelSelectorAsSelector: the four set operators, checked as labels.NewRequirement checks them. */
function labelRequirement(r: SelectorRequirement): LabelRequirement | string {
  const operator = LABEL_OPERATORS[r.operator ?? ''];
  if (!operator) return `${goQuote(r.operator ?? '')} is not a valid label selector operator`;
  const key = r.key ?? '';
  const values = r.values ?? [];
  const problems = isQualifiedName(key).map((msg) => `key: Invalid value: ${goQuote(key)}: ${msg}`);
  if ((operator === 'In' || operator === 'NotIn') && !values.length) problems.push("values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty");
  if ((operator === 'Exists' || operator === 'DoesNotExist') && values.length) {
    problems.push(`values: Invalid value: []string{${values.map(goQuote).join(', ')}}: values set must be empty for exists and does not exist`);
  }
  values.forEach((value, i) => problems.push(...isValidLabelValue(value).map((msg) => `values[${i}]: Invalid value: ${goQuote(value)}: ${msg}`)));
  if (problems.length) return aggregateErrors(problems);
  return { key, operator, values: [...values] };
}

export function fieldSelectorAttribute(selector: SelectorAttributes | undefined): SelectorAttribute<FieldRequirement> | undefined {
  if (!selector) return undefined;
  if (selector.requirements?.length) return converted(selector.requirements, fieldRequirement);
  if (selector.rawSelector) return parsed(() => parseFieldSelector(selector.rawSelector).requirements);
  return undefined;
}

export function labelSelectorAttribute(selector: SelectorAttributes | undefined): SelectorAttribute<LabelRequirement> | undefined {
  if (!selector) return undefined;
  if (selector.requirements?.length) return converted(selector.requirements, labelRequirement);
  if (selector.rawSelector) return parsed(() => parseLabelSelector(selector.rawSelector).requirements);
  return undefined;
}

/** What a review reports about selectors it could not (fully) use, in kube's words. */
export function selectorEvaluationErrors(attrs: {
  fieldSelector?: SelectorAttribute<unknown>;
  labelSelector?: SelectorAttribute<unknown>;
}): string[] {
  const report = (name: string, selector: SelectorAttribute<unknown> | undefined): string[] => {
    if (!selector?.error) return [];
    const how = selector.requirements.length ? 'partially ignored' : 'ignored';
    return [`spec.resourceAttributes.${name} ${how} due to parse error`];
  };
  return [...report('fieldSelector', attrs.fieldSelector), ...report('labelSelector', attrs.labelSelector)];
}
