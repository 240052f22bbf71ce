import { statusOf } from '../../support/status-of';
import { decodeObjectRequest } from '../../../src/runtime/serializer/object-decoder';
import { roleType } from '../../../src/rbac/kinds/kinds';

const JSON_TYPE = 'application/json';
const YAML_TYPE = 'application/yaml';
const decode = (body: string, directive: 'Ignore' | 'Warn' | 'Strict' = 'Warn', contentType = JSON_TYPE) =>
  decodeObjectRequest(contentType, Buffer.from(body), roleType, directive);

const withUnknown = '{"apiVersion":"rbac.authorization.platform.io/v1","kind":"Role","metadata":{"name":"r","name":"s"},"spec":{"x":1},"rules":[]}';

describe('decoding create and update bodies', () => {
  it('Warn: the object without unknown fields, one warning per problem', () => {
    const out = decode(withUnknown);
    expect(out.object).toEqual({ apiVersion: 'rbac.authorization.platform.io/v1', kind: 'Role', metadata: { name: 's' }, rules: [] });
    expect(out.warnings).toEqual(['duplicate field "metadata.name"', 'unknown field "spec"']);
  });

  it('Ignore: the same object, no warnings', () => {
    expect(decode(withUnknown, 'Ignore')).toEqual({ object: decode(withUnknown).object, warnings: [] });
  });

  it("Strict: 400 listing all of them in kube's words", () => {
    const err = statusOf(() => decode(withUnknown, 'Strict'));
    expect(err.code).toBe(400);
    expect(err.reason).toBe('BadRequest');
    expect(err.message).toBe('Role in version "v1" cannot be handled as a Role: strict decoding error: duplicate field "metadata.name", unknown field "spec"');
  });

  it('a type error is 400 without the unknown-field detail, whatever the directive', () => {
    for (const directive of ['Ignore', 'Warn', 'Strict'] as const) {
      const err = statusOf(() => decode('{"metadata":{"name":"r"},"spec":1,"rules":"x"}', directive));
      expect([err.code, err.message]).toEqual([
        400,
        'Role in version "v1" cannot be handled as a Role: json: cannot unmarshal string into Go struct field Role.rules of type []v1.PolicyRule',
      ]);
    }
  });

  it('names the kind and version the body claims', () => {
    const err = statusOf(() => decode('{"apiVersion":"rbac.authorization.platform.io/v2","kind":"Role","rules":5}'));
    expect(err.message).toMatch(/^Role in version "v2" cannot be handled as a Role: /);
  });

  it('YAML: repeated keys warned line by line, refused in one message', () => {
    const yaml = 'metadata:\n  name: a\n  name: b\nrules: []\nextra: 1\n';
    expect(decode(yaml, 'Warn', YAML_TYPE).warnings).toEqual(['line 3: key "name" already set in map', 'unknown field "extra"']);
    expect(statusOf(() => decode(yaml, 'Strict', YAML_TYPE)).message).toBe(
      'Role in version "v1" cannot be handled as a Role: strict decoding error: error converting YAML to JSON: yaml: unmarshal errors:\n  line 3: key "name" already set in map, unknown field "extra"',
    );
  });

  it.each([
    ['', 'the object provided is unrecognized (must be of type Role): couldn\'t get version/kind; json parse error: unexpected end of JSON input (<empty>)'],
    ['{"metadata": ', 'the object provided is unrecognized (must be of type Role): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"metadata": )'],
    ['[1]', 'the object provided is unrecognized (must be of type Role): couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b315d)'],
    ['{"kind":5}', 'the object provided is unrecognized (must be of type Role): couldn\'t get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string ({"kind":5})'],
  ])('an unreadable body %j is 400', (body, message) => {
    const err = statusOf(() => decode(body));
    expect([err.code, err.message]).toEqual([400, message]);
  });

  it('another media type is 415', () => {
    expect(statusOf(() => decode('{}', 'Warn', 'text/plain')).code).toBe(415);
  });
});
