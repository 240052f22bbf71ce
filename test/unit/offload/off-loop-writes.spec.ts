import { StatusError } from '../../../src/apimachinery/errors';
import * as fc from 'fast-check';
import { deepClone, jsonEqual } from '../../../src/apimachinery/system-metadata';
import { KubeObject } from '../../../src/apimachinery/types';
import { decodeApplyConfiguration } from '../../../src/runtime/apply/apply-request';
import { ApplyConflicts } from '../../../src/runtime/apply/conflicts';
import { FieldManager } from '../../../src/runtime/apply/field-manager';
import {
  applyOffLoop,
  copyOfLargeObject,
  decodeApplyConfigurationOffLoop,
  decodeObjectRequestOffLoop,
  isLargeObject,
  jsonEqualInSlices,
  looksLarge,
  OffLoopPatch,
  updateManagedFieldsOffLoop,
} from '../../../src/runtime/offload/offload';
import { apiVersionOf, ResourceType } from '../../../src/runtime/schema/resource-type';
import { decodeObjectRequest } from '../../../src/runtime/serializer/object-decoder';
import { applyPatch, parsePatch } from '../../../src/runtime/patch/patcher';
import { configMapType } from '../../../src/core/kinds/config-map';
import { roleType } from '../../../src/rbac/kinds/kinds';
import { bigRole } from '../../../bench/heavy-inputs';

/**
 * The managed fields of a write of a large object are computed on a codec thread; they are
 * the ones the event loop computes (entry times aside, which are the moment of the write),
 * and an apply's result and its 409 conflicts are the same too.
 */
const KEYS = 3000;
const RULES = 2000;

const configMap = (value: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'big', ...extra },
  data: Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`key-${i}`, `${value}-${i}`])),
});

/** The copy of a decoded body the generic storage writes: its TypeMeta and namespace set, the rest as decoded. */
function storageCopy(type: ResourceType, body: Record<string, unknown>): KubeObject {
  const obj = { ...body } as KubeObject;
  obj.apiVersion = apiVersionOf(type);
  obj.kind = type.kind;
  obj.metadata = { ...(obj.metadata as KubeObject['metadata']), namespace: 'default' };
  return obj;
}

/** managedFields with each entry's time (the moment of the write) replaced by whether it has one. */
function withoutTimes(obj: KubeObject): KubeObject {
  const copy = deepClone(obj);
  for (const entry of copy.metadata.managedFields ?? []) if (entry.time !== undefined) entry.time = 'set';
  return copy;
}

const outcome = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ value }),
    (err: unknown) => ({ error: err instanceof StatusError ? [err.code, err.reason, err.message, err.details] : err }),
  );

/** What FieldManager.update makes of `body` over `live`, on the event loop and on a codec thread. */
async function updateBothWays(type: ResourceType, body: Record<string, unknown>, live: KubeObject | null, manager: string) {
  const text = Buffer.from(JSON.stringify(body));
  const decoded = await decodeObjectRequestOffLoop('application/json', text, type, 'Strict');
  expect(isLargeObject(decoded.object)).toBe(true);
  const fields = new FieldManager({ apiVersion: apiVersionOf(type), schema: type.schema });
  const onLoop = storageCopy(type, decodeObjectRequest('application/json', text, type, 'Strict').object);
  fields.update(live, onLoop, manager);
  const offLoop = storageCopy(type, decoded.object);
  await updateManagedFieldsOffLoop(fields, type, { live, next: offLoop, source: decoded.object, manager });
  return { onLoop, offLoop };
}

describe('managed fields of large writes, off the event loop', () => {
  const cmFields = new FieldManager({ apiVersion: 'v1', schema: configMapType.schema });
  const created = (body: Record<string, unknown>, manager: string) => {
    const obj = storageCopy(configMapType, deepClone(body));
    cmFields.update(null, obj, manager);
    return obj;
  };

  it('a create, an update over another manager and the managedFields a client sends are recorded as on the event loop', async () => {
    const live = created(configMap('old'), 'other');
    const validSent = live.metadata.managedFields;
    const cases: Array<[string, Record<string, unknown>, KubeObject | null]> = [
      ['create', configMap('a'), null],
      ['update', configMap('b'), live],
      ['update keeping half', { ...configMap('old'), data: { ...configMap('new').data, 'key-1': 'old-1' } }, live],
      ['reset by an empty entry', configMap('c', { managedFields: [{}] }), live],
      ['replaced by a valid list', configMap('d', { managedFields: validSent }), null],
      ['a broken list keeps the live ones', configMap('e', { managedFields: [{ manager: 'x', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: 'not an object' }] }), live],
    ];
    for (const [label, body, current] of cases) {
      const { onLoop, offLoop } = await updateBothWays(configMapType, body, current, 'writer');
      expect([label, withoutTimes(offLoop)]).toEqual([label, withoutTimes(onLoop)]);
    }
  }, 120_000);

  it('a Role of many rules (an atomic list) is recorded as on the event loop', async () => {
    const { onLoop, offLoop } = await updateBothWays(roleType, bigRole('big', RULES), null, 'kubectl-create');
    expect(withoutTimes(offLoop)).toEqual(withoutTimes(onLoop));
    expect(offLoop.metadata.managedFields).toHaveLength(1);
  }, 60_000);

  it('a retried write starts again from a copy equal to the first', async () => {
    const decoded = await decodeObjectRequestOffLoop('application/json', Buffer.from(JSON.stringify(configMap('r'))), configMapType, 'Strict');
    const first = storageCopy(configMapType, decoded.object);
    const expected = JSON.stringify(first);
    const copy = await copyOfLargeObject(decoded.object, first);
    first.metadata.resourceVersion = '9';
    expect(JSON.stringify(copy)).toBe(expected);
  });

  it('an apply of a large configuration gives the same object, and the same 409 on conflicts', async () => {
    const yaml = (value: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n  namespace: default\ndata:\n` + Array.from({ length: KEYS }, (_, i) => `  key-${i}: ${value}-${i}\n`).join('');
    const live = created(configMap('old'), 'other');
    const target = { namespace: 'default', name: 'big' };
    const cases: Array<[string, KubeObject | null, string, boolean]> = [
      ['new object', null, 'applier', false],
      ['conflicts with the other manager', live, 'applier', false],
      ['forced over the other manager', live, 'applier', true],
      ['kubectl, no last-applied configuration', live, 'kubectl', false],
      ['same values as the other manager (shared)', live, 'applier', false],
    ];
    for (const [label, current, manager, force] of cases) {
      const body = Buffer.from(yaml(label.startsWith('same') ? 'old' : 'new'));
      const decoded = await decodeApplyConfigurationOffLoop(body, configMapType, target, 'Warn');
      expect('chunks' in decoded).toBe(true);
      const onLoop = await outcome(
        (async () => {
          const { config } = decodeApplyConfiguration(body, configMapType, target, 'Warn');
          try {
            return cmFields.apply(current, config, manager, force);
          } catch (err) {
            throw err instanceof ApplyConflicts ? err.toStatusError() : err;
          }
        })(),
      );
      const offLoop = await outcome(applyOffLoop(cmFields, configMapType, { live: current, config: decoded, manager, force }));
      const normalized = (o: { value?: KubeObject; error?: unknown }) => ('value' in o ? { value: withoutTimes(o.value!) } : o);
      expect([label, normalized(offLoop)]).toEqual([label, normalized(onLoop)]);
      if (label.startsWith('conflicts')) expect((offLoop as { error: unknown[] }).error?.[0]).toBe(409);
    }
  }, 120_000);
});

describe('small writes to a large object, off the event loop', () => {
  const cmFields = new FieldManager({ apiVersion: 'v1', schema: configMapType.schema });
  const live = storageCopy(configMapType, configMap('old'));
  cmFields.update(null, live, 'creator');
  const normalized = (o: { value?: KubeObject; error?: unknown }) => ('value' in o ? { value: withoutTimes(o.value!) } : o);

  it('counts an object as large from a thousand members and items', () => {
    expect(looksLarge(live)).toBe(true);
    expect(looksLarge({ metadata: { name: 'a' }, data: { k: 'v' } })).toBe(false);
    expect(looksLarge({ rules: Array.from({ length: 600 }, () => ({ verbs: ['get'] })) })).toBe(true);
  });

  it('a small patch is applied and recorded as on the event loop, and a failing one fails the same', async () => {
    for (const [type, text] of [
      ['merge', JSON.stringify({ metadata: { labels: { a: 'b' } }, data: { 'key-1': 'changed', 'key-2': null } })],
      ['json', JSON.stringify([{ op: 'test', path: '/data/key-3', value: 'wrong' }])],
      ['strategic', JSON.stringify({ data: { 'key-9': 'x' }, unknown: 1 })],
    ] as const) {
      const body = Buffer.from(text);
      const patch = await OffLoopPatch.read(type, body);
      expect(patch.large).toBe(false);
      const onLoop = await outcome(Promise.resolve().then(() => applyPatch(configMapType, live, parsePatch(type, body), 'Strict')));
      const offLoop = await outcome(patch.applyTo(configMapType, live, 'Strict', JSON.stringify(live)));
      expect([type, offLoop]).toEqual([type, onLoop]);
      if (!('value' in onLoop)) continue;
      const next = { ...(onLoop.value.object as KubeObject) };
      next.metadata = { ...next.metadata };
      const offNext = { ...((offLoop as typeof onLoop).value.object as KubeObject) };
      offNext.metadata = { ...offNext.metadata };
      cmFields.update(live, next, 'patcher');
      await updateManagedFieldsOffLoop(cmFields, configMapType, { live, next: offNext, source: {}, manager: 'patcher' });
      expect(withoutTimes(offNext)).toEqual(withoutTimes(next));
    }
  }, 60_000);

  it('a small apply gives the same object and the same 409', async () => {
    const target = { namespace: 'default', name: 'big' };
    for (const [label, yaml, force] of [
      ['a label', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n  labels: {a: b}\n', false],
      ['a conflicting key', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  key-1: mine\n', false],
      ['a forced key', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  key-1: mine\n', true],
    ] as const) {
      const body = Buffer.from(yaml);
      const decoded = await decodeApplyConfigurationOffLoop(body, configMapType, target, 'Warn');
      expect('config' in decoded).toBe(true);
      const onLoop = await outcome(
        (async () => {
          try {
            return cmFields.apply(live, decodeApplyConfiguration(body, configMapType, target, 'Warn').config, 'applier', force);
          } catch (err) {
            throw err instanceof ApplyConflicts ? err.toStatusError() : err;
          }
        })(),
      );
      const offLoop = await outcome(applyOffLoop(cmFields, configMapType, { live, config: decoded, manager: 'applier', force }));
      expect([label, normalized(offLoop)]).toEqual([label, normalized(onLoop)]);
    }
  }, 60_000);
});

describe('comparing large objects a slice at a time', () => {
  it('answers what jsonEqual answers', async () => {
    // Pairs that are often equal or nearly so: a value and a copy with one change, undefined members, __proto__ keys.
    const value = fc.jsonValue();
    const pair = fc.oneof(
      fc.tuple(value, value),
      value.map((v) => [v, deepClone(v)] as const),
      fc.tuple(value, fc.jsonValue(), fc.string()).map(([v, w, key]) => [{ a: v, [key]: w, u: undefined }, JSON.parse(JSON.stringify({ [key]: w, a: v }))] as const),
      value.map((v) => [JSON.parse(`{"__proto__":${JSON.stringify(v)}}`), { ['__proto__']: v }] as const),
    );
    await fc.assert(
      fc.asyncProperty(pair, async ([a, b]) => {
        expect(await jsonEqualInSlices(a, b)).toBe(jsonEqual(a, b));
      }),
      { numRuns: 500 },
    );
  });

  it('compares a Role of many rules, equal and differing in its last rule', async () => {
    const a = bigRole('big', 20_000);
    const b = deepClone(a);
    expect(await jsonEqualInSlices(a, b)).toBe(true);
    (b.rules as Array<{ verbs: string[] }>)[19_999].verbs = ['list'];
    expect(await jsonEqualInSlices(a, b)).toBe(false);
  });
});
