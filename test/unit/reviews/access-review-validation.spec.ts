import { FieldError } from '../../../src/apimachinery/field-errors';
import {
  validateLocalSubjectAccessReview,
  validateSelfSubjectAccessReview,
  validateSubjectAccessReview,
} from '../../../src/reviews/access-review-validation';
import { reviewInvalid } from '../../../src/reviews/review-request';
import { AccessReview } from '../../../src/reviews/review-types';

const GROUP = 'authorization.platform.io';

/** The 422 message kube gives for these errors. */
function message(errs: FieldError[]): string {
  return reviewInvalid(GROUP, errs).message;
}

const resource = { verb: 'get', resource: 'pods' };
const sar = (spec: AccessReview['spec'], metadata: AccessReview['metadata'] = {}): AccessReview => ({ metadata, spec });

describe('access review validation', () => {
  it.each<[string, AccessReview['spec']]>([
    ['a resource question for a user', { user: 'alice', resourceAttributes: resource }],
    ['a non-resource question for a group', { groups: ['devs'], nonResourceAttributes: { path: '/metrics', verb: 'get' } }],
    ['an empty resource question', { user: 'alice', resourceAttributes: {} }],
    ['a raw field selector that does not parse (answered, not refused)', { user: 'a', resourceAttributes: { fieldSelector: { rawSelector: '***foo' } } }],
    ['unknown selector operators (ignored when answering)', {
      user: 'a',
      resourceAttributes: {
        fieldSelector: { requirements: [{ key: 'k', operator: 'fake', values: ['v'] }] },
        labelSelector: { requirements: [{ key: 'k', operator: 'fake', values: ['v'] }] },
      },
    }],
    ['an empty selector (no restriction)', { user: 'a', resourceAttributes: { fieldSelector: {}, labelSelector: {} } }],
  ])('accepts %s', (_name, spec) => {
    expect(validateSubjectAccessReview(sar(spec))).toEqual([]);
  });

  it.each<[string, AccessReview['spec'], string]>([
    [
      'neither kind of attributes',
      { user: 'alice' },
      'spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    ],
    [
      'both kinds of attributes',
      { user: 'alice', resourceAttributes: resource, nonResourceAttributes: { path: '/api', verb: 'get' } },
      'spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/api", Verb:"get"}: cannot be specified in combination with resourceAttributes',
    ],
    ['no user and no group', { resourceAttributes: resource, groups: [] }, 'spec.user: Invalid value: "": at least one of user or group must be specified'],
    [
      'a field selector with both forms',
      { user: 'a', resourceAttributes: { fieldSelector: { rawSelector: 'foo', requirements: [{ key: 'k', operator: 'In', values: ['v'] }] } } },
      'spec.resourceAttributes.fieldSelector.rawSelector: Invalid value: "foo": may not specified at the same time as requirements',
    ],
    [
      'a field requirement without key',
      { user: 'a', resourceAttributes: { fieldSelector: { requirements: [{ key: '', operator: 'In', values: ['v'] }] } } },
      'spec.resourceAttributes.fieldSelector.requirements[0].key: Required value: must be specified',
    ],
    [
      'a field In without values',
      { user: 'a', resourceAttributes: { fieldSelector: { requirements: [{ key: 'k', operator: 'In', values: [] }] } } },
      "spec.resourceAttributes.fieldSelector.requirements[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ],
    [
      'a field NotIn without values',
      { user: 'a', resourceAttributes: { fieldSelector: { requirements: [{ key: 'k', operator: 'NotIn' }] } } },
      "spec.resourceAttributes.fieldSelector.requirements[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ],
    [
      'a field Exists with values',
      { user: 'a', resourceAttributes: { fieldSelector: { requirements: [{ key: 'k', operator: 'Exists', values: ['v'] }] } } },
      "spec.resourceAttributes.fieldSelector.requirements[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    ],
    [
      'a label selector with both forms',
      { user: 'a', resourceAttributes: { labelSelector: { rawSelector: 'foo', requirements: [{ key: 'k', operator: 'Exists' }] } } },
      'spec.resourceAttributes.labelSelector.rawSelector: Invalid value: "foo": may not specified at the same time as requirements',
    ],
    [
      'a label requirement with a bad key',
      { user: 'a', resourceAttributes: { labelSelector: { requirements: [{ key: '()foo', operator: 'Exists' }] } } },
      `spec.resourceAttributes.labelSelector.requirements[0].key: Invalid value: "()foo": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ],
    [
      'a label NotIn without values',
      { user: 'a', resourceAttributes: { labelSelector: { requirements: [{ key: 'k', operator: 'NotIn', values: [] }] } } },
      "spec.resourceAttributes.labelSelector.requirements[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ],
    [
      'a label DoesNotExist with values',
      { user: 'a', resourceAttributes: { labelSelector: { requirements: [{ key: 'k', operator: 'DoesNotExist', values: ['v'] }] } } },
      "spec.resourceAttributes.labelSelector.requirements[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    ],
    [
      'a label value that is not a label value',
      { user: 'a', resourceAttributes: { labelSelector: { requirements: [{ key: 'k', operator: 'In', values: ['a b'] }] } } },
      'spec.resourceAttributes.labelSelector.requirements[0].values[0]: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters',
    ],
  ])('refuses %s', (_name, spec, expected) => {
    expect(message(validateSubjectAccessReview(sar(spec)))).toContain(`.authorization.platform.io "" is invalid: ${expected}`);
  });

  it('lists several errors in kube\'s aggregate form, with causes', () => {
    const err = reviewInvalid(GROUP, validateSubjectAccessReview(sar({})));
    expect(err.message).toBe(
      '.authorization.platform.io "" is invalid: [spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]',
    );
    expect(err.code).toBe(422);
    expect(err.details).toEqual({
      group: GROUP,
      causes: [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
          field: 'spec.resourceAttributes',
        },
        { reason: 'FieldValueInvalid', message: 'Invalid value: "": at least one of user or group must be specified', field: 'spec.user' },
      ],
    });
  });

  describe('metadata', () => {
    const managed = [{ manager: 'curl', operation: 'Update' as const, apiVersion: `${GROUP}/v1`, time: '2024-05-01T10:00:00Z', fieldsType: 'FieldsV1' as const, fieldsV1: {} }];

    it('may hold managedFields and empty collections only', () => {
      expect(validateSubjectAccessReview(sar({ user: 'a', resourceAttributes: resource }, { managedFields: managed, labels: {}, finalizers: [] }))).toEqual([]);
    });

    it('must otherwise be empty, named as Go prints ObjectMeta', () => {
      const text = message(validateSubjectAccessReview(sar({ user: 'a', resourceAttributes: resource }, { name: 'x', labels: { a: 'b' } })));
      expect(text).toBe(
        '.authorization.platform.io "" is invalid: metadata: Invalid value: v1.ObjectMeta{Name:"x", GenerateName:"", Namespace:"", SelfLink:"", UID:"", ' +
          'ResourceVersion:"", Generation:0, CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), DeletionTimestamp:<nil>, ' +
          'DeletionGracePeriodSeconds:(*int64)(nil), Labels:map[string]string{"a":"b"}, Annotations:map[string]string(nil), ' +
          'OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string(nil), ManagedFields:[]v1.ManagedFieldsEntry(nil)}: must be empty',
      );
    });

    it('of a SelfSubjectAccessReview must be empty too', () => {
      expect(message(validateSelfSubjectAccessReview({ metadata: { generateName: 'x-' }, spec: { resourceAttributes: resource } }))).toMatch(
        /^\.authorization\.platform\.io "" is invalid: metadata: Invalid value: v1\.ObjectMeta\{Name:"", GenerateName:"x-", .*\}: must be empty$/,
      );
    });
  });

  describe('LocalSubjectAccessReview', () => {
    const local = (spec: AccessReview['spec'], metadata: AccessReview['metadata'] = { namespace: 'ns' }) => validateLocalSubjectAccessReview({ metadata, spec });

    it('accepts a question about its own namespace', () => {
      expect(local({ user: 'a', resourceAttributes: { ...resource, namespace: 'ns' } })).toEqual([]);
    });

    it('refuses a question about another namespace', () => {
      expect(message(local({ user: 'a', resourceAttributes: { ...resource, namespace: 'other' } }))).toBe(
        '.authorization.platform.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace',
      );
    });

    it('refuses non-resource questions', () => {
      expect(message(local({ user: 'a', nonResourceAttributes: { path: '/x', verb: 'get' } }))).toBe(
        '.authorization.platform.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: disallowed on this kind of request',
      );
    });

    it('allows a namespace but nothing else in metadata', () => {
      expect(message(local({ user: 'a', resourceAttributes: { ...resource, namespace: 'ns' } }, { namespace: 'ns', name: 'n' }))).toMatch(
        /metadata: Invalid value: v1\.ObjectMeta\{Name:"n", GenerateName:"", Namespace:"ns", .*\}: must be empty except for namespace$/,
      );
    });
  });

  describe('SelfSubjectAccessReview', () => {
    it('needs exactly one kind of attributes and checks its selectors', () => {
      expect(validateSelfSubjectAccessReview({ spec: { resourceAttributes: resource } })).toEqual([]);
      expect(message(validateSelfSubjectAccessReview({ spec: {} }))).toContain('exactly one of nonResourceAttributes or resourceAttributes must be specified');
      expect(message(validateSelfSubjectAccessReview({ spec: { resourceAttributes: resource, nonResourceAttributes: {} } }))).toContain(
        'spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"", Verb:""}: cannot be specified in combination with resourceAttributes',
      );
      expect(
        message(validateSelfSubjectAccessReview({ spec: { resourceAttributes: { labelSelector: { rawSelector: 'a', requirements: [{ key: 'a', operator: 'Exists' }] } } } })),
      ).toContain('spec.resourceAttributes.labelSelector.rawSelector: Invalid value: "a": may not specified at the same time as requirements');
    });
  });
});
