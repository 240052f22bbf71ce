import { PATCH_NOT_APPLICABLE, statusOf } from '../../support/status-of';
import { applyPatch, parsePatch, ParsedPatch } from '../../../src/runtime/patch/patcher';
import { roleBindingType, roleType } from '../../../src/rbac/kinds/kinds';

const role = {
  apiVersion: 'rbac.authorization.platform.io/v1',
  kind: 'Role',
  metadata: { name: 'r', namespace: 'default', labels: { a: '1' }, finalizers: ['x/a'] },
  rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
};

const parsed = (type: ParsedPatch['type'], body: unknown) => parsePatch(type, Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)));
const run = (type: ParsedPatch['type'], body: unknown, directive: 'Ignore' | 'Warn' | 'Strict' = 'Warn', kind = roleType) =>
  applyPatch(kind, structuredClone(role) as Record<string, unknown>, parsed(type, body), directive);

describe('patch flows', () => {
  it('a patch body that is not JSON is 400 "invalid JSON patch"', () => {
    for (const type of ['json', 'merge', 'strategic'] as const) {
      const err = statusOf(() => parsed(type, '{nope'));
      expect([err.code, err.reason, err.message]).toEqual([400, 'BadRequest', 'invalid JSON patch']);
    }
  });

  it('strategic merge: labels merge, finalizers are a set, rules are atomic', () => {
    const out = run('strategic', { metadata: { labels: { b: '2' }, finalizers: ['x/b'] }, rules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }] });
    expect(out.object.metadata).toEqual({ name: 'r', namespace: 'default', labels: { a: '1', b: '2' }, finalizers: ['x/b', 'x/a'] });
    expect(out.object.rules).toEqual([{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }]);
  });

  it('RoleBinding subjects are replaced, not merged', () => {
    const binding = { metadata: { name: 'b' }, roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'a' }] };
    const out = applyPatch(roleBindingType, binding, parsed('strategic', { subjects: [{ kind: 'User', name: 'b' }] }), 'Strict');
    expect(out.object.subjects).toEqual([{ kind: 'User', name: 'b' }]);
  });

  it('Warn: unknown fields of the result and repeated keys of the patch become warnings', () => {
    for (const type of ['merge', 'strategic'] as const) {
      const out = run(type, '{"metadata":{"labels":{"c":"1","c":"2"}},"spec":{"x":1}}');
      expect(out.warnings).toEqual(['duplicate field "metadata.labels.c"', 'unknown field "spec"']);
      expect(out.object).not.toHaveProperty('spec');
    }
  });

  it('Strict: 422 Invalid on the field patch, with the patch (SMP) or the patched object (merge) as value', () => {
    const smp = statusOf(() => run('strategic', { spec: { x: 1 } }, 'Strict'));
    expect([smp.code, smp.reason]).toEqual([422, 'Invalid']);
    expect(smp.message).toBe(' "" is invalid: patch: Invalid value: "map[spec:map[x:1]]": strict decoding error: unknown field "spec"');
    expect(smp.details?.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'patch', message: 'Invalid value: "map[spec:map[x:1]]": strict decoding error: unknown field "spec"' },
    ]);
    const merge = statusOf(() => run('merge', { spec: { x: 1 } }, 'Strict'));
    expect(merge.message).toMatch(/^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":.*\\"spec\\":\{\\"x\\":1\}\}": strict decoding error: unknown field "spec"$/);
  });

  it('JSON patch: unknown fields of operations are strict errors too', () => {
    const out = run('json', [{ op: 'add', path: '/metadata/labels/b', value: '2', extra: true }]);
    expect(out.warnings).toEqual(['json patch unknown field "[0].extra"']);
    expect((out.object.metadata as { labels: object }).labels).toEqual({ a: '1', b: '2' });
  });

  it('a wrongly typed result is 422 Invalid (json for merge, the map converter for strategic)', () => {
    expect(statusOf(() => run('merge', { rules: 'x' }, 'Ignore')).message).toContain(
      ': json: cannot unmarshal string into Go struct field Role.rules of type []v1.PolicyRule',
    );
    expect(statusOf(() => run('strategic', { rules: 'x' }, 'Ignore')).message).toBe(
      ' "" is invalid: patch: Invalid value: "map[rules:x]": cannot restore slice from string',
    );
  });

  it("a failed JSON patch operation is kube's generic 422: a fixed message and empty details, no cause", () => {
    const err = statusOf(() => run('json', [{ op: 'test', path: '/rules/0/verbs/0', value: 'nope' }]));
    expect(err.toStatus()).toEqual(PATCH_NOT_APPLICABLE);
  });

  it.each<[ParsedPatch['type'], unknown, string]>([
    ['json', { op: 'add' }, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch'],
    ['json', [1], 'json: cannot unmarshal number into Go value of type jsonpatch.Operation'],
    ['merge', 'null', 'Invalid JSON Patch'],
    ['strategic', [1], 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['strategic', { metadata: { $patch: 'nope' } }, 'unknown patch type: nope in map: map[$patch:nope]'],
    ['strategic', { '$setElementOrder': [] }, 'invalid patch format of setElementOrder list'],
  ])('%s patch %j is 400', (type, body, message) => {
    const err = statusOf(() => run(type, body, 'Ignore'));
    expect([err.code, err.message]).toEqual([400, message]);
  });

  it('Strict JSON and merge patches must themselves decode (400 error decoding patch)', () => {
    expect(statusOf(() => run('json', { op: 'add' }, 'Strict')).message).toBe(
      'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp',
    );
    expect(statusOf(() => run('merge', [1], 'Strict')).message).toBe(
      'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}',
    );
  });

  it('more than 10000 JSON patch operations is 413', () => {
    const ops = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/kind', value: 'Role' }));
    expect(statusOf(() => run('json', ops, 'Ignore')).code).toBe(413);
  });
});
