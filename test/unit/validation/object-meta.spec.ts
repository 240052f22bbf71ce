import { FieldError, fieldErrorMessage, FieldPath } from '../../../src/apimachinery/field-errors';
import { ObjectMeta } from '../../../src/apimachinery/types';
import { nameIsDNSLabel, validatePathSegmentName } from '../../../src/apimachinery/validation/names';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../../src/apimachinery/validation/object-meta';

const messages = (errs: FieldError[]) => errs.map(fieldErrorMessage);
const clusterScoped = { namespaced: false, nameValidator: validatePathSegmentName };
const namespaced = { namespaced: true, nameValidator: validatePathSegmentName };
const dnsLabelNamed = { namespaced: false, nameValidator: nameIsDNSLabel };

const QNAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const DNS_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

describe('validateObjectMeta', () => {
  it('accepts complete, valid metadata', () => {
    const meta: ObjectMeta = {
      name: 'system:viewer',
      namespace: 'team-a',
      labels: { app: 'web', 'example.com/tier': '' },
      annotations: { 'Example.com/Note': 'anything at all' },
      finalizers: ['example.com/cleanup', 'kubernetes'],
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u1', controller: true }],
      managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: {} }],
      generation: 3,
    };
    expect(validateObjectMeta(meta, namespaced)).toEqual([]);
  });

  describe('name and generateName', () => {
    it('requires one of them', () => {
      const errs = validateObjectMeta({}, clusterScoped);
      expect(messages(errs)).toEqual(['metadata.name: Required value: name or generateName is required']);
      expect(errs[0].type).toBe('FieldValueRequired');
    });

    it('checks the name with the kind validator, one error per reason', () => {
      const errs = validateObjectMeta({ name: 'a/%' }, clusterScoped);
      expect(messages(errs)).toEqual([
        `metadata.name: Invalid value: "a/%": may not contain '/'`,
        `metadata.name: Invalid value: "a/%": may not contain '%'`,
      ]);
      expect(errs.every((e) => e.type === 'FieldValueInvalid')).toBe(true);
      expect(messages(validateObjectMeta({ name: '..' }, clusterScoped))).toEqual([`metadata.name: Invalid value: "..": may not be '..'`]);
      expect(messages(validateObjectMeta({ name: 'Bad_Name' }, dnsLabelNamed))).toEqual([
        `metadata.name: Invalid value: "Bad_Name": ${DNS_LABEL_MSG}`,
      ]);
    });

    it('checks generateName as a prefix', () => {
      expect(validateObjectMeta({ name: 'gen-x1', generateName: '..' }, clusterScoped)).toEqual([]);
      expect(validateObjectMeta({ name: 'gen-x1', generateName: 'gen-' }, dnsLabelNamed)).toEqual([]);
      expect(messages(validateObjectMeta({ name: 'ax1', generateName: 'a/' }, clusterScoped))).toEqual([
        `metadata.generateName: Invalid value: "a/": may not contain '/'`,
      ]);
    });
  });

  describe('namespace', () => {
    it('is required for namespaced kinds', () => {
      const errs = validateObjectMeta({ name: 'r' }, namespaced);
      expect(messages(errs)).toEqual(['metadata.namespace: Required value']);
      expect(errs[0].type).toBe('FieldValueRequired');
    });

    it('must be a DNS label', () => {
      expect(messages(validateObjectMeta({ name: 'r', namespace: 'Team_A' }, namespaced))).toEqual([
        `metadata.namespace: Invalid value: "Team_A": ${DNS_LABEL_MSG}`,
      ]);
    });

    it('is forbidden on cluster-scoped kinds', () => {
      const errs = validateObjectMeta({ name: 'r', namespace: 'default' }, clusterScoped);
      expect(messages(errs)).toEqual(['metadata.namespace: Forbidden: not allowed on this type']);
      expect(errs[0].type).toBe('FieldValueForbidden');
    });
  });

  it('refuses a negative generation', () => {
    expect(messages(validateObjectMeta({ name: 'r', generation: -1 }, clusterScoped))).toEqual([
      'metadata.generation: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });

  describe('labels', () => {
    it('checks keys as qualified names and values as label values, naming the map', () => {
      const errs = validateObjectMeta({ name: 'r', labels: { 'bad key!': 'x', ok: '-bad' } }, clusterScoped);
      expect(messages(errs)).toEqual([
        `metadata.labels: Invalid value: "bad key!": name part ${QNAME_MSG}`,
        `metadata.labels: Invalid value: "-bad": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      ]);
    });

    it('limits values to 63 characters', () => {
      expect(messages(validateObjectMeta({ name: 'r', labels: { a: 'v'.repeat(64) } }, clusterScoped))).toEqual([
        `metadata.labels: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`,
      ]);
    });
  });

  describe('annotations', () => {
    it('checks keys as qualified names regardless of case', () => {
      expect(validateObjectMeta({ name: 'r', annotations: { 'Example.COM/Key': 'v' } }, clusterScoped)).toEqual([]);
      expect(messages(validateObjectMeta({ name: 'r', annotations: { 'a b': 'v' } }, clusterScoped))).toEqual([
        `metadata.annotations: Invalid value: "a b": name part ${QNAME_MSG}`,
      ]);
    });

    it('limits keys and values together to 256 KiB', () => {
      const fits = { a: 'x'.repeat(262144 - 1) };
      expect(validateObjectMeta({ name: 'r', annotations: fits }, clusterScoped)).toEqual([]);
      const errs = validateObjectMeta({ name: 'r', annotations: { a: 'x'.repeat(262144) } }, clusterScoped);
      expect(messages(errs)).toEqual(['metadata.annotations: Too long: must have at most 262144 bytes']);
      expect(errs[0].type).toBe('FieldValueTooLong');
    });

    it('counts bytes, not characters', () => {
      const errs = validateObjectMeta({ name: 'r', annotations: { a: 'é'.repeat(131072) } }, clusterScoped);
      expect(messages(errs)).toEqual(['metadata.annotations: Too long: must have at most 262144 bytes']);
    });
  });

  describe('finalizers', () => {
    it('must be qualified names; errors name the list', () => {
      expect(messages(validateObjectMeta({ name: 'r', finalizers: ['ok', 'bad finalizer'] }, clusterScoped))).toEqual([
        `metadata.finalizers: Invalid value: "bad finalizer": name part ${QNAME_MSG}`,
      ]);
    });

    it('may not combine orphan and foregroundDeletion', () => {
      const errs = validateObjectMeta({ name: 'r', finalizers: ['orphan', 'foregroundDeletion'] }, clusterScoped);
      expect(messages(errs)).toEqual([
        'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set',
      ]);
    });
  });

  describe('ownerReferences', () => {
    it('requires apiVersion with a version, kind, name and uid', () => {
      const errs = validateObjectMeta({ name: 'r', ownerReferences: [{ apiVersion: 'apps/', kind: '', name: '', uid: '' }] }, clusterScoped);
      expect(messages(errs)).toEqual([
        'metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty',
        'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
        'metadata.ownerReferences.name: Invalid value: "": must not be empty',
        'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
      ]);
    });

    it('refuses Events as owners', () => {
      const ref = { apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' };
      expect(messages(validateObjectMeta({ name: 'r', ownerReferences: [ref] }, clusterScoped))).toEqual([
        `metadata.ownerReferences: Invalid value: ${JSON.stringify(ref)}: /v1, Kind=Event is disallowed from being an owner`,
      ]);
    });

    it('allows only one controller', () => {
      const refs = [
        { apiVersion: 'v1', kind: 'A', name: 'a', uid: '1', controller: true },
        { apiVersion: 'v1', kind: 'B', name: 'b', uid: '2', controller: true },
      ];
      const errs = validateObjectMeta({ name: 'r', ownerReferences: refs }, clusterScoped);
      expect(errs).toHaveLength(1);
      expect(fieldErrorMessage(errs[0])).toMatch(
        /^metadata\.ownerReferences: Invalid value: .*: Only one reference can have Controller set to true\. Found "true" in references for A\/a and B\/b$/,
      );
    });
  });

  describe('managedFields', () => {
    it('operation must be Apply or Update', () => {
      const errs = validateObjectMeta({ name: 'r', managedFields: [{ manager: 'm', operation: 'Patch' as never }] }, clusterScoped);
      expect(messages(errs)).toEqual(['metadata.managedFields[0].operation: Invalid value: "Patch": must be `Apply` or `Update`']);
      expect(messages(validateObjectMeta({ name: 'r', managedFields: [{ manager: 'm' }] }, clusterScoped))).toEqual([
        'metadata.managedFields[0].operation: Invalid value: "": must be `Apply` or `Update`',
      ]);
    });

    it('fieldsType must be FieldsV1 when set', () => {
      const errs = validateObjectMeta(
        { name: 'r', managedFields: [{ manager: 'm', operation: 'Update', fieldsType: 'FieldsV2' as never }] },
        clusterScoped,
      );
      expect(messages(errs)).toEqual(['metadata.managedFields[0].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`']);
    });

    it('manager is at most 128 bytes of printable characters', () => {
      const ok = { name: 'r', managedFields: [{ manager: 'm'.repeat(128), operation: 'Update' as const }] };
      expect(validateObjectMeta(ok, clusterScoped)).toEqual([]);
      const long = { name: 'r', managedFields: [{ manager: 'm'.repeat(129), operation: 'Update' as const }] };
      const errs = validateObjectMeta(long, clusterScoped);
      expect(messages(errs)).toEqual(['metadata.managedFields[0].manager: Too long: must have at most 128 bytes']);
      expect(errs[0].type).toBe('FieldValueTooLong');
      const control = { name: 'r', managedFields: [{ manager: 'é\u0007', operation: 'Update' as const }] };
      expect(messages(validateObjectMeta(control, clusterScoped))).toEqual([
        'metadata.managedFields[0].manager: Invalid value: "é\\u0007": invalid character U+0007 (at position 2)',
      ]);
    });

    it('subresource is at most 256 bytes', () => {
      const meta = { name: 'r', managedFields: [{ manager: 'm', operation: 'Update' as const, subresource: 's'.repeat(257) }] };
      expect(messages(validateObjectMeta(meta, clusterScoped))).toEqual([
        'metadata.managedFields[0].subresource: Too long: must have at most 256 bytes',
      ]);
    });
  });

  it('reads wrongly typed fields as their zero values; decoding refused them before (schema-decoder)', () => {
    // A body never reaches validation with these types: decoding into the kind fails first,
    // with kube's 400 (see schema-decoder.spec.ts). Called directly, validation does not throw.
    const meta = { name: 5, labels: { a: 1 }, finalizers: 'x' } as unknown as ObjectMeta;
    expect(messages(validateObjectMeta(meta, clusterScoped))).toEqual(['metadata.name: Required value: name or generateName is required']);
  });

  it('uses the given root path', () => {
    expect(messages(validateObjectMeta({}, clusterScoped, FieldPath.root('spec').child('template').child('metadata')))).toEqual([
      'spec.template.metadata.name: Required value: name or generateName is required',
    ]);
  });
});

describe('validateObjectMetaUpdate', () => {
  const old: ObjectMeta = {
    name: 'r',
    namespace: 'default',
    uid: 'uid-1',
    creationTimestamp: '2024-01-01T00:00:00Z',
    resourceVersion: '5',
    generation: 2,
  };

  it('accepts an update that keeps the identity fields', () => {
    expect(validateObjectMetaUpdate({ ...old, labels: { new: 'label' } }, old)).toEqual([]);
  });

  it.each([
    ['name', { name: 'other' }, 'metadata.name: Invalid value: "other": field is immutable'],
    ['namespace', { namespace: 'kube-system' }, 'metadata.namespace: Invalid value: "kube-system": field is immutable'],
    ['uid', { uid: 'uid-2' }, 'metadata.uid: Invalid value: "uid-2": field is immutable'],
    [
      'creationTimestamp',
      { creationTimestamp: '2025-01-01T00:00:00Z' },
      'metadata.creationTimestamp: Invalid value: "2025-01-01T00:00:00Z": field is immutable',
    ],
    [
      'deletionTimestamp',
      { deletionTimestamp: '2025-01-01T00:00:00Z' },
      'metadata.deletionTimestamp: Invalid value: "2025-01-01T00:00:00Z": field is immutable',
    ],
    ['deletionGracePeriodSeconds', { deletionGracePeriodSeconds: 30 }, 'metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable'],
  ])('%s is immutable', (_field, change, message) => {
    const errs = validateObjectMetaUpdate({ ...old, ...change }, old);
    expect(messages(errs)).toEqual([message]);
    expect(errs[0].type).toBe('FieldValueInvalid');
  });

  it('reports a removed uid as a change to ""', () => {
    const { uid: _uid, ...rest } = old;
    expect(messages(validateObjectMetaUpdate(rest, old))).toEqual(['metadata.uid: Invalid value: "": field is immutable']);
  });

  it('generation may not go down', () => {
    expect(messages(validateObjectMetaUpdate({ ...old, generation: 1 }, old))).toEqual([
      'metadata.generation: Invalid value: 1: must not be decremented',
    ]);
    expect(validateObjectMetaUpdate({ ...old, generation: 3 }, old)).toEqual([]);
  });

  it('an object being deleted may not gain finalizers', () => {
    const deleting = { ...old, deletionTimestamp: '2025-01-01T00:00:00Z', finalizers: ['a.io/x'] };
    expect(validateObjectMetaUpdate({ ...deleting, finalizers: [] }, deleting)).toEqual([]);
    const errs = validateObjectMetaUpdate({ ...deleting, finalizers: ['a.io/x', 'c.io/z', 'b.io/y'] }, deleting);
    expect(messages(errs)).toEqual([
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.io/y", "c.io/z"}',
    ]);
    expect(errs[0].type).toBe('FieldValueForbidden');
  });
});
