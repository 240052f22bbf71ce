import { LabelRequirement, LabelSelector as ParsedLabelSelector } from '../../apimachinery/selectors/label-selector';
import { isConvertibleLabelSelector, LabelSelector, LabelSelectorRequirement } from '../../apimachinery/validation/labels';
import { isPlainObject } from '../../apimachinery/types';

/** matchExpressions operators and the parsed-selector operator each stands for. */
const EXPRESSION_OPERATORS: Record<string, LabelRequirement['operator']> = {
  In: 'In',
  NotIn: 'NotIn',
  Exists: 'Exists',
  DoesNotExist: 'DoesNotExist',
};

/**
 * A clusterRoleSelector as a matcher, the way kube's metav1.LabelSelectorAsSelector reads
 * it: matchLabels are equality requirements, matchExpressions set/existence requirements,
 * all ANDed; an empty selector matches every role. Returns null for a selector kube could
 * not convert (an aggregating role with one is left alone, as kube's controller does).
 */
export function clusterRoleSelectorMatcher(selector: LabelSelector | null | undefined): ParsedLabelSelector | null {
  // A null entry in the list decodes to an empty selector in kube.
  const value: LabelSelector = isPlainObject(selector) ? selector : {};
  if (!isConvertibleLabelSelector(value)) return null;
  const requirements: LabelRequirement[] = Object.entries(value.matchLabels ?? {}).map(([key, v]) => ({
    key,
    operator: 'Equals',
    values: [v],
  }));
  for (const expr of value.matchExpressions ?? []) {
    const e = expr as LabelSelectorRequirement;
    requirements.push({ key: e.key, operator: EXPRESSION_OPERATORS[e.operator], values: [...(e.values ?? [])] });
  }
  return new ParsedLabelSelector(requirements);
}
