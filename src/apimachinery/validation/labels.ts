import { FieldError, fieldErrors, FieldPath } from '../field-errors';
import { isQualifiedName, isValidLabelValue } from './names';
import { str, strList, strRecord, list } from './shape';

/** Labels and label selectors, as apimachinery's meta/v1/validation checks them. */

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface LabelSelectorValidationOptions {
  /** Tolerate bad values in matchExpressions (kube allows it when the stored object already has them). */
  allowInvalidLabelValueInSelector?: boolean;
}

const SET_OPERATORS = ['In', 'NotIn'];
const EXISTENCE_OPERATORS = ['Exists', 'DoesNotExist'];

/** A label key must be a qualified name. */
export function validateLabelName(name: string, path: FieldPath): FieldError[] {
  return isQualifiedName(name).map((msg) => fieldErrors.invalid(path, name, msg));
}

/** Keys and values of a label map; errors name the map itself, as kube's do. */
export function validateLabels(labels: Record<string, string> | undefined, path: FieldPath): FieldError[] {
  return Object.entries(strRecord(labels)).flatMap(([key, value]) => [
    ...validateLabelName(key, path),
    ...isValidLabelValue(value).map((msg) => fieldErrors.invalid(path, value, msg)),
  ]);
}

export function validateLabelSelectorRequirement(
  req: LabelSelectorRequirement,
  opts: LabelSelectorValidationOptions,
  path: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  const operator = str(req.operator);
  const values = strList(req.values);
  if (SET_OPERATORS.includes(operator)) {
    if (!values.length) errs.push(fieldErrors.required(path.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
  } else if (EXISTENCE_OPERATORS.includes(operator)) {
    if (values.length) {
      errs.push(fieldErrors.forbidden(path.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    }
  } else {
    errs.push(fieldErrors.invalid(path.child('operator'), operator, 'not a valid selector operator'));
  }
  errs.push(...validateLabelName(str(req.key), path.child('key')));
  if (!opts.allowInvalidLabelValueInSelector) {
    values.forEach((value, i) => {
      errs.push(...isValidLabelValue(value).map((msg) => fieldErrors.invalid(path.child('values').index(i), value, msg)));
    });
  }
  return errs;
}

export function validateLabelSelector(
  selector: LabelSelector | null | undefined,
  opts: LabelSelectorValidationOptions,
  path: FieldPath,
): FieldError[] {
  if (!selector) return [];
  return [
    ...validateLabels(selector.matchLabels, path.child('matchLabels')),
    ...list<LabelSelectorRequirement>(selector.matchExpressions).flatMap((req, i) =>
      validateLabelSelectorRequirement(req ?? ({} as LabelSelectorRequirement), opts, path.child('matchExpressions').index(i)),
    ),
  ];
}

/**
 * Whether kube's metav1.LabelSelectorAsSelector would accept the selector: every key a
 * qualified name, every value a label value, and values present exactly when the
 * operator needs them. Unlike validateLabelSelector it never tolerates bad values.
 */
export function isConvertibleLabelSelector(selector: LabelSelector | null | undefined): boolean {
  if (!selector) return true;
  const labelsOk = Object.entries(strRecord(selector.matchLabels)).every(
    ([key, value]) => !isQualifiedName(key).length && !isValidLabelValue(value).length,
  );
  return labelsOk && list<LabelSelectorRequirement>(selector.matchExpressions).every((req) => isConvertibleRequirement(req ?? {}));
}

/** Set operators need values, existence operators take none, other operators are unknown. */
function operatorFitsValues(operator: string, valueCount: number): boolean {
  if (SET_OPERATORS.includes(operator)) return valueCount > 0;
  if (EXISTENCE_OPERATORS.includes(operator)) return valueCount === 0;
  return false;
}

function isConvertibleRequirement(req: Partial<LabelSelectorRequirement>): boolean {
  const values = strList(req.values);
  return (
    operatorFitsValues(str(req.operator), values.length) &&
    !isQualifiedName(str(req.key)).length &&
    values.every((v) => !isValidLabelValue(v).length)
  );
}
