import { fieldSelectorAttribute, labelSelectorAttribute, selectorEvaluationErrors } from '../../../src/reviews/selector-attributes';

/** The four cases of a selector attribute (rawSelector x requirements); "both" is refused by validation. */
describe('review selectors as authorizer attributes', () => {
  describe('case 1: neither rawSelector nor requirements', () => {
    it.each([undefined, {}, { rawSelector: '', requirements: [] }])('restricts nothing (%j)', (selector) => {
      expect(fieldSelectorAttribute(selector)).toBeUndefined();
      expect(labelSelectorAttribute(selector)).toBeUndefined();
    });
  });

  describe('case 2: rawSelector only', () => {
    it('is parsed with the list-query parsers', () => {
      expect(fieldSelectorAttribute({ rawSelector: 'spec.nodeName=n1,metadata.name!=x' })).toEqual({
        requirements: [
          { field: 'spec.nodeName', operator: 'Equals', value: 'n1' },
          { field: 'metadata.name', operator: 'NotEquals', value: 'x' },
        ],
      });
      expect(labelSelectorAttribute({ rawSelector: 'app in (a,b),!legacy' })).toEqual({
        requirements: [
          { key: 'app', operator: 'In', values: ['a', 'b'] },
          { key: 'legacy', operator: 'DoesNotExist', values: [] },
        ],
      });
    });

    it('leaves the request unrestricted, keeping the error, when it does not parse', () => {
      const field = fieldSelectorAttribute({ rawSelector: 'nonsense' });
      expect(field).toEqual({ requirements: [], error: expect.stringContaining("can't understand 'nonsense'") });
      const label = labelSelectorAttribute({ rawSelector: 'a in (' });
      expect(label?.requirements).toEqual([]);
      expect(label?.error).toBeTruthy();
      expect(selectorEvaluationErrors({ fieldSelector: field, labelSelector: label })).toEqual([
        'spec.resourceAttributes.fieldSelector ignored due to parse error',
        'spec.resourceAttributes.labelSelector ignored due to parse error',
      ]);
    });
  });

  describe('case 3: requirements only', () => {
    it('uses In and NotIn of field selectors as = and !=', () => {
      expect(
        fieldSelectorAttribute({
          requirements: [
            { key: 'spec.nodeName', operator: 'In', values: ['n1'] },
            { key: 'status.phase', operator: 'NotIn', values: ['Failed'] },
          ],
        }),
      ).toEqual({
        requirements: [
          { field: 'spec.nodeName', operator: 'Equals', value: 'n1' },
          { field: 'status.phase', operator: 'NotEquals', value: 'Failed' },
        ],
      });
    });

    it('drops field requirements it cannot use, keeping the others and kube\'s reasons', () => {
      const attr = fieldSelectorAttribute({
        requirements: [
          { key: 'a', operator: 'In', values: ['1'] },
          { key: 'b', operator: 'In', values: ['1', '2'] },
          { key: 'c', operator: 'Exists' },
          { key: 'd', operator: 'Near', values: ['x'] },
        ],
      });
      expect(attr).toEqual({
        requirements: [{ field: 'a', operator: 'Equals', value: '1' }],
        error: '[fieldSelectors do not yet support multiple values, fieldSelectors do not yet support Exists, "Near" is not a valid field selector operator]',
      });
      expect(selectorEvaluationErrors({ fieldSelector: attr })).toEqual(['spec.resourceAttributes.fieldSelector partially ignored due to parse error']);
    });

    it('uses the four set operators of label selectors', () => {
      expect(
        labelSelectorAttribute({
          requirements: [
            { key: 'app', operator: 'In', values: ['web'] },
            { key: 'tier', operator: 'NotIn', values: ['db', 'cache'] },
            { key: 'team', operator: 'Exists' },
            { key: 'legacy', operator: 'DoesNotExist' },
          ],
        }),
      ).toEqual({
        requirements: [
          { key: 'app', operator: 'In', values: ['web'] },
          { key: 'tier', operator: 'NotIn', values: ['db', 'cache'] },
          { key: 'team', operator: 'Exists', values: [] },
          { key: 'legacy', operator: 'DoesNotExist', values: [] },
        ],
      });
    });

    it('ignores a label requirement with an unknown operator, saying so', () => {
      const attr = labelSelectorAttribute({ requirements: [{ key: 'app', operator: 'Matches', values: ['w*'] }] });
      expect(attr).toEqual({ requirements: [], error: '"Matches" is not a valid label selector operator' });
      expect(selectorEvaluationErrors({ labelSelector: attr })).toEqual(['spec.resourceAttributes.labelSelector ignored due to parse error']);
    });
  });
});
