import { FieldError, fieldErrorMessage, FieldPath } from '../../../src/apimachinery/field-errors';
import { isConvertibleLabelSelector, LabelSelector, validateLabelSelector, validateLabels } from '../../../src/apimachinery/validation/labels';

const messages = (errs: FieldError[]) => errs.map(fieldErrorMessage);
const at = FieldPath.root('selector');

describe('validateLabels', () => {
  it('accepts valid maps and nothing', () => {
    expect(validateLabels({ app: 'x', 'example.com/a': '' }, at)).toEqual([]);
    expect(validateLabels(undefined, at)).toEqual([]);
  });
});

describe('validateLabelSelector', () => {
  it('accepts every operator used correctly', () => {
    const selector: LabelSelector = {
      matchLabels: { 'rbac.authorization.platform.io/aggregate-to-view': 'true' },
      matchExpressions: [
        { key: 'a', operator: 'In', values: ['x'] },
        { key: 'b', operator: 'NotIn', values: ['y', 'z'] },
        { key: 'c', operator: 'Exists' },
        { key: 'd', operator: 'DoesNotExist', values: [] },
      ],
    };
    expect(validateLabelSelector(selector, {}, at)).toEqual([]);
    expect(isConvertibleLabelSelector(selector)).toBe(true);
    expect(validateLabelSelector(null, {}, at)).toEqual([]);
  });

  it('In and NotIn need values', () => {
    const errs = validateLabelSelector({ matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] }, {}, at);
    expect(messages(errs)).toEqual(["selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"]);
    expect(errs[0].type).toBe('FieldValueRequired');
  });

  it('Exists and DoesNotExist take no values', () => {
    const errs = validateLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, {}, at);
    expect(messages(errs)).toEqual([
      "selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    ]);
    expect(errs[0].type).toBe('FieldValueForbidden');
  });

  it('rejects unknown operators', () => {
    const errs = validateLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Near', values: ['b'] }] }, {}, at);
    expect(messages(errs)).toEqual(['selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator']);
  });

  it('checks keys and values', () => {
    const errs = validateLabelSelector(
      { matchLabels: { 'a b': 'ok' }, matchExpressions: [{ key: '', operator: 'In', values: ['ok', 'not ok'] }] },
      {},
      at,
    );
    expect(errs.map((e) => e.field)).toEqual([
      'selector.matchLabels',
      'selector.matchExpressions[0].key',
      'selector.matchExpressions[0].key',
      'selector.matchExpressions[0].values[1]',
    ]);
    expect(fieldErrorMessage(errs[1])).toBe('selector.matchExpressions[0].key: Invalid value: "": name part must be non-empty');
  });

  it('can tolerate bad expression values', () => {
    const selector = { matchExpressions: [{ key: 'a', operator: 'In', values: ['not ok'] }] };
    expect(validateLabelSelector(selector, { allowInvalidLabelValueInSelector: true }, at)).toEqual([]);
    expect(isConvertibleLabelSelector(selector)).toBe(false);
  });

  it('isConvertibleLabelSelector fails whenever kube cannot build the selector', () => {
    expect(isConvertibleLabelSelector({ matchLabels: { a: '-' } })).toBe(false);
    expect(isConvertibleLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Near' }] })).toBe(false);
    expect(isConvertibleLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In' }] })).toBe(false);
    expect(isConvertibleLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] })).toBe(false);
    expect(isConvertibleLabelSelector({})).toBe(true);
  });
});
