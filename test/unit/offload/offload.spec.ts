import { StatusError } from '../../../src/apimachinery/errors';
import { decodeApplyConfiguration } from '../../../src/runtime/apply/apply-request';
import { decodeObjectRequest } from '../../../src/runtime/serializer/object-decoder';
import { serializeForResponse } from '../../../src/runtime/serializer/serializers';
import { renderResponseOffLoop, decodeApplyConfigurationOffLoop, decodeObjectRequestOffLoop, OffLoopPatch, OFF_LOOP_BYTES, stringifyInSlices } from '../../../src/runtime/offload/offload';
import { applyPatch, parsePatch } from '../../../src/runtime/patch/patcher';
import { configMapType } from '../../../src/core/kinds/config-map';
import { roleType } from '../../../src/rbac/kinds/kinds';
import { bigRole } from '../../../bench/heavy-inputs';
import { jsonOf, keepEncoding } from '../../../src/runtime/serializer/kept-encodings';
import { fromJsonChunks } from '../../../src/runtime/offload/json-chunks';

/**
 * Work moved off the event loop answers what the event loop would have: the codec threads
 * run the same decoding, patching and encoding on large payloads, with the same errors.
 */
const RULES = 2000;
const role = () => bigRole('big', RULES);
const yamlRole = (extra = '') =>
  `apiVersion: rbac.authorization.platform.io/v1\nkind: Role\nmetadata:\n  name: big\n${extra}rules:\n` +
  (role().rules as Array<{ resourceNames: string[] }>).map((r) => `- apiGroups: [""]\n  resources: [pods]\n  verbs: [get]\n  resourceNames: [${r.resourceNames[0]}]\n`).join('');

/** What a call returns, or the error it throws. */
function thrown(fn: () => unknown): unknown {
  try {
    return fn();
  } catch (err) {
    return err;
  }
}

const statusOf = (err: unknown) => (err instanceof StatusError ? [err.code, err.reason, err.message] : err);

describe('work off the event loop', () => {
  it('a large YAML or JSON body decodes as it does on the event loop, warnings and errors alike', async () => {
    const bodies: Array<[string, string]> = [
      ['application/yaml', yamlRole('x: 1\n')],
      ['application/json', JSON.stringify({ ...role(), unknown: true })],
      ['application/yaml', yamlRole() + `deep: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`],
      ['application/json', JSON.stringify(role()).slice(0, -10)],
    ];
    for (const [contentType, text] of bodies) {
      const body = Buffer.from(text);
      expect(body.length).toBeGreaterThanOrEqual(OFF_LOOP_BYTES);
      for (const directive of ['Warn', 'Strict'] as const) {
        const onLoop = thrown(() => decodeObjectRequest(contentType, body, roleType, directive));
        const offLoop = await decodeObjectRequestOffLoop(contentType, body, roleType, directive).then(
          (v) => ({ value: v }),
          (err: unknown) => ({ error: err }),
        );
        if (onLoop instanceof Error) expect(statusOf((offLoop as { error: unknown }).error)).toEqual(statusOf(onLoop));
        else expect(offLoop).toEqual({ value: decodeObjectRequest(contentType, body, roleType, directive) });
      }
    }
  }, 120_000);

  it('a large apply configuration decodes as it does on the event loop', async () => {
    const body = Buffer.from(yamlRole('extra: 1\n'));
    const target = { namespace: 'default', name: 'big' };
    const offLoop = await decodeApplyConfigurationOffLoop(body, roleType, target, 'Warn');
    const onLoop = decodeApplyConfiguration(body, roleType, target, 'Warn');
    expect(offLoop.warnings).toEqual(onLoop.warnings);
    // A large configuration stays in pieces until a codec thread applies it.
    expect('chunks' in offLoop && fromJsonChunks(offLoop.chunks)).toEqual(onLoop.config);
  }, 60_000);

  it('a large merge patch is read, then applied, as on the event loop; a broken one is the same 400', async () => {
    const current = { ...role(), metadata: { name: 'big', namespace: 'default', resourceVersion: '5' } };
    const body = Buffer.from(JSON.stringify({ rules: (role().rules as object[]).map((r) => ({ ...r, verbs: ['watch'] })) }));
    const patch = await OffLoopPatch.read('merge', body);
    expect(await patch.applyTo(roleType, current, 'Strict')).toEqual(applyPatch(roleType, current, parsePatch('merge', body), 'Strict'));
    const broken = body.subarray(0, body.length - 1);
    const error = await OffLoopPatch.read('merge', broken).catch((err: unknown) => err);
    expect(statusOf(error)).toEqual(statusOf(thrown(() => parsePatch('merge', broken))));
  }, 60_000);

  it('a list is written as JSON.stringify writes it, a slice of items at a time', async () => {
    const list = { kind: 'RoleList', apiVersion: 'v1', items: [role(), { metadata: { name: 'b' } }, null], metadata: { resourceVersion: '7' } };
    expect(await stringifyInSlices(list)).toBe(JSON.stringify(list));
    const table = { kind: 'Table', rows: [{ cells: ['a'] }, { cells: ['b'] }], columnDefinitions: [] };
    expect(await stringifyInSlices(table)).toBe(JSON.stringify(table));
    for (const value of [{ items: [] }, { items: [1] }, 'text', null, [1, 2]]) expect(await stringifyInSlices(value)).toBe(JSON.stringify(value));
  });

  it('long arrays one or two levels down (a who-can answer) are written as JSON.stringify writes them, kept encodings included', async () => {
    const grants = Array.from({ length: 600 }, (_, i) => keepEncoding({ binding: { kind: 'RoleBinding', name: `b${i}` }, subjects: [{ kind: 'User', name: `u${i}` }], skipped: undefined }));
    const review = {
      kind: 'ResourceAccessReview',
      status: { users: grants.map((_, i) => `u${i}`), groups: ['system:masters'], grants, incomplete: false, evaluationError: undefined },
      spec: { resourceAttributes: { verb: 'get' } },
      tail: Array.from({ length: 300 }, (_, i) => (i % 3 ? i : undefined)),
    };
    expect(await stringifyInSlices(review)).toBe(JSON.stringify(review));
    // The kept text is written again as it was first made: the values are never changed once marked.
    expect(await stringifyInSlices(review)).toBe(JSON.stringify(review));
    expect(jsonOf(grants[0])).toBe(JSON.stringify(grants[0]));
    expect(jsonOf({ a: 1 })).toBe('{"a":1}');
    expect(jsonOf(undefined)).toBe('null');
  });

  it('a large answer in YAML, pretty JSON or protobuf is what the serializers write', async () => {
    const object = { ...role(), metadata: { name: 'big', namespace: 'default' } };
    const target = { type: roleType, query: {} };
    for (const [serializer, mediaType, pretty] of [
      ['yaml', 'application/yaml', false],
      ['json', 'application/json', true],
      ['protobuf', 'application/vnd.platform.protobuf', false],
    ] as const) {
      const rendered = await renderResponseOffLoop({ serializer, mediaType, pretty: false }, object, target, pretty);
      expect(Buffer.from(rendered.body).equals(Buffer.from(serializeForResponse(serializer, object, { pretty, type: roleType })))).toBe(true);
    }
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: 'v' } };
    expect((await renderResponseOffLoop({ serializer: 'yaml', mediaType: 'application/yaml', pretty: false }, configMap, { type: configMapType, query: {} }, false)).body).toBe(
      serializeForResponse('yaml', configMap, {}),
    );
  }, 60_000);
});
