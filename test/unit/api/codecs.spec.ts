import { decodeObjectBody } from '../../../src/runtime/serializer/codecs';
import { errors } from '../../../src/apimachinery/errors';
import { fieldErrors } from '../../../src/apimachinery/field-errors';

describe('decodeObjectBody', () => {
  it('reads JSON and YAML objects', () => {
    expect(decodeObjectBody('application/json', Buffer.from('{"a":1}'))).toEqual({ a: 1 });
    expect(decodeObjectBody('application/yaml', Buffer.from('a: 1\n'))).toEqual({ a: 1 });
  });

  it('rejects bad bodies with 400 and unknown types with 415', () => {
    expect(() => decodeObjectBody('application/json', Buffer.from('{'))).toThrow(expect.objectContaining({ code: 400 }));
    expect(() => decodeObjectBody('application/json', Buffer.from('[]'))).toThrow(expect.objectContaining({ code: 400 }));
    expect(() => decodeObjectBody('application/json', Buffer.from(''))).toThrow(expect.objectContaining({ code: 400 }));
    expect(() => decodeObjectBody('text/plain', Buffer.from('{}'))).toThrow(expect.objectContaining({ code: 415 }));
    expect(() => decodeObjectBody(undefined, Buffer.from('{}'))).toThrow(expect.objectContaining({ code: 415 }));
  });
});

describe('Status errors', () => {
  it('formats Invalid like kube, with one cause per field error', () => {
    const err = errors.invalid('Role', 'rbac.authorization.platform.io', 'r', [
      fieldErrors.required('rules[0].verbs', 'verbs must contain at least one value'),
      fieldErrors.notSupported('roleRef.kind', 'X', ['Role', 'ClusterRole']),
    ]);
    expect(err.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'Role.rbac.authorization.platform.io "r" is invalid: [rules[0].verbs: Required value: verbs must contain at least one value, roleRef.kind: Unsupported value: "X": supported values: "Role", "ClusterRole"]',
      reason: 'Invalid',
      details: {
        name: 'r',
        group: 'rbac.authorization.platform.io',
        kind: 'Role',
        causes: [
          { reason: 'FieldValueRequired', message: 'Required value: verbs must contain at least one value', field: 'rules[0].verbs' },
          { reason: 'FieldValueNotSupported', message: 'Unsupported value: "X": supported values: "Role", "ClusterRole"', field: 'roleRef.kind' },
        ],
      },
      code: 422,
    });
  });

  it('a single error is not bracketed', () => {
    const err = errors.invalid('ClusterRole', 'rbac.authorization.platform.io', 'c', [fieldErrors.invalid('metadata.name', 'a/b', "may not contain '/'")]);
    expect(err.message).toBe(`ClusterRole.rbac.authorization.platform.io "c" is invalid: metadata.name: Invalid value: "a/b": may not contain '/'`);
  });
});
