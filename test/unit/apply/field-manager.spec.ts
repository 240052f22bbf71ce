import { ApplyConflicts } from '../../../src/runtime/apply/conflicts';
import { FieldManager, keepTimestampsOfNoopWrite } from '../../../src/runtime/apply/field-manager';
import { objectMetaSchema } from '../../../src/runtime/schema/meta';
import { atomicList, atomicStruct, integer, kindSchema, map, mapList, setList, string, struct } from '../../../src/runtime/schema/schema';
import { KubeObject } from '../../../src/apimachinery/types';
import { roleSchema } from '../../../src/rbac/kinds/schemas';
import { managerOrUserAgent, prefixFromUserAgent } from '../../../src/runtime/apply/manager-name';

/**
 * Sequences of applies and updates with the fieldsV1 each manager ends up with and the
 * conflicts kube reports, over a kind that has every merge marker.
 */
const widgetSchema = kindSchema(objectMetaSchema, {
  spec: struct({
    replicas: integer(),
    tags: setList(string()),
    ports: mapList(struct({ name: string(), port: integer(), protocol: string() }), ['name']),
    endpoints: mapList(struct({ host: string(), port: integer(), weight: integer() }), ['host', 'port']),
    selector: atomicStruct({ app: string(), tier: string() }),
    config: map(string()),
    env: map(string(), 'atomic'),
    args: atomicList(string()),
  }),
  status: struct({ phase: string() }),
});

const V = 'example.platform.io/v1';

type Step =
  | { apply: string; config: Record<string, unknown>; force?: boolean }
  | { update: string; object: (live: KubeObject | null) => KubeObject };

function widget(fields: Record<string, unknown>, metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: V, kind: 'Widget', metadata: { name: 'w', ...metadata }, ...fields };
}

/** Runs the steps on one object; returns it. */
function run(steps: Step[], manager = new FieldManager({ apiVersion: V, schema: widgetSchema })): KubeObject {
  let live: KubeObject | null = null;
  for (const step of steps) {
    if ('apply' in step) {
      live = manager.apply(live, structuredClone(step.config), step.apply, !!step.force);
    } else {
      const next = step.object(live ? structuredClone(live) : null);
      manager.update(live, next, step.update);
      live = next;
    }
  }
  return live!;
}

/** managedFields as `manager/operation` → fieldsV1. */
function owners(obj: KubeObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of obj.metadata.managedFields ?? []) out[`${e.manager}/${e.operation}`] = e.fieldsV1;
  return out;
}

function conflictOf(steps: Step[]): ApplyConflicts {
  try {
    run(steps);
  } catch (err) {
    if (err instanceof ApplyConflicts) return err;
    throw err;
  }
  throw new Error('expected a conflict');
}

const spec = (s: Record<string, unknown>) => widget({ spec: s });
/** An update that sets spec (and metadata) as given, keeping the rest of the live object. */
const setSpec =
  (s: Record<string, unknown>, metadata: Record<string, unknown> = {}) =>
  (live: KubeObject | null): KubeObject => {
    const base = (live ?? widget({})) as KubeObject;
    return { ...base, metadata: { ...base.metadata, ...metadata }, spec: s } as KubeObject;
  };

describe('field manager: apply and update sequences', () => {
  it('1. an apply owns exactly what it sets; metadata identity is never owned', () => {
    const obj = run([{ apply: 'a', config: spec({ replicas: 1, tags: ['x', 'y'] }) }]);
    expect(owners(obj)).toEqual({ 'a/Apply': { 'f:spec': { 'f:replicas': {}, 'f:tags': { 'v:"x"': {}, 'v:"y"': {} } } } });
    expect(obj.metadata.managedFields![0]).toMatchObject({ manager: 'a', operation: 'Apply', apiVersion: V, fieldsType: 'FieldsV1' });
    expect(obj.metadata.managedFields![0].time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('2. a create records what it added, with "." for values added whole', () => {
    const obj = run([{ update: 'u', object: () => widget({ spec: { replicas: 1, tags: ['x'] } }, { labels: { app: 'w' } }) as KubeObject }]);
    expect(owners(obj)).toEqual({
      'u/Update': {
        'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        'f:spec': { '.': {}, 'f:replicas': {}, 'f:tags': { '.': {}, 'v:"x"': {} } },
      },
    });
  });

  it('3. applying the same value as another applier shares ownership', () => {
    const obj = run([
      { apply: 'a', config: spec({ tags: ['x'] }) },
      { apply: 'b', config: spec({ tags: ['x'] }) },
    ]);
    expect(owners(obj)).toEqual({ 'a/Apply': { 'f:spec': { 'f:tags': { 'v:"x"': {} } } }, 'b/Apply': { 'f:spec': { 'f:tags': { 'v:"x"': {} } } } });
  });

  it('4. changing a field another applier owns is a conflict', () => {
    const err = conflictOf([
      { apply: 'a', config: spec({ replicas: 1 }) },
      { apply: 'b', config: spec({ replicas: 2 }) },
    ]);
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "a": .spec.replicas');
    expect(err.toStatusError().toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "a": .spec.replicas',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.replicas' }] },
      code: 409,
    });
  });

  it('5. force takes the field; the previous owner loses it', () => {
    const obj = run([
      { apply: 'a', config: spec({ replicas: 1, args: ['x'] }) },
      { apply: 'b', config: spec({ replicas: 2 }), force: true },
    ]);
    expect(obj.spec).toEqual({ replicas: 2, args: ['x'] });
    expect(owners(obj)).toEqual({ 'a/Apply': { 'f:spec': { 'f:args': {} } }, 'b/Apply': { 'f:spec': { 'f:replicas': {} } } });
  });

  it('6. a set item the applier stops applying is removed', () => {
    const obj = run([
      { apply: 'a', config: spec({ tags: ['x', 'y'] }) },
      { apply: 'a', config: spec({ tags: ['x'] }) },
    ]);
    expect(obj.spec).toEqual({ tags: ['x'] });
    expect(owners(obj)).toEqual({ 'a/Apply': { 'f:spec': { 'f:tags': { 'v:"x"': {} } } } });
  });

  it('7. an omitted item another applier also owns stays', () => {
    const obj = run([
      { apply: 'a', config: spec({ tags: ['x', 'y'] }) },
      { apply: 'b', config: spec({ tags: ['y'] }) },
      { apply: 'a', config: spec({ tags: ['x'] }) },
    ]);
    expect(obj.spec).toEqual({ tags: ['x', 'y'] });
    expect(owners(obj)).toEqual({ 'a/Apply': { 'f:spec': { 'f:tags': { 'v:"x"': {} } } }, 'b/Apply': { 'f:spec': { 'f:tags': { 'v:"y"': {} } } } });
  });

  it('8. an omitted scalar is removed unless an updater took it', () => {
    const removed = run([
      { apply: 'a', config: spec({ replicas: 1, args: ['x'] }) },
      { apply: 'a', config: spec({ args: ['x'] }) },
    ]);
    expect(removed.spec).toEqual({ args: ['x'] });
    const kept = run([
      { apply: 'a', config: spec({ replicas: 1, args: ['x'] }) },
      { update: 'u', object: setSpec({ replicas: 3, args: ['x'] }) },
      { apply: 'a', config: spec({ args: ['x'] }) },
    ]);
    expect(kept.spec).toEqual({ replicas: 3, args: ['x'] });
    expect(owners(kept)).toEqual({ 'a/Apply': { 'f:spec': { 'f:args': {} } }, 'u/Update': { 'f:spec': { 'f:replicas': {} } } });
  });

  it('9. map-list items are owned by key, with "." for the item itself', () => {
    const obj = run([{ apply: 'a', config: spec({ ports: [{ name: 'http', port: 80 }] }) }]);
    expect(owners(obj)).toEqual({ 'a/Apply': { 'f:spec': { 'f:ports': { 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {} } } } } });
  });

  it('10. map-list items from two appliers merge by key, live order first', () => {
    const obj = run([
      { apply: 'a', config: spec({ ports: [{ name: 'http', port: 80 }] }) },
      { apply: 'b', config: spec({ ports: [{ name: 'https', port: 443 }] }) },
    ]);
    expect(obj.spec).toEqual({ ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] });
    expect(owners(obj)['b/Apply']).toEqual({ 'f:spec': { 'f:ports': { 'k:{"name":"https"}': { '.': {}, 'f:name': {}, 'f:port': {} } } } });
  });

  it('11. a field inside another applier\'s map-list item conflicts by its key path', () => {
    const err = conflictOf([
      { apply: 'a', config: spec({ ports: [{ name: 'http', port: 80 }] }) },
      { apply: 'b', config: spec({ ports: [{ name: 'http', port: 8080 }] }) },
    ]);
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "a": .spec.ports[name="http"].port');
  });

  it('12. new fields inside a shared map-list item are granular: no conflict', () => {
    const obj = run([
      { apply: 'a', config: spec({ ports: [{ name: 'http', port: 80 }] }) },
      { apply: 'b', config: spec({ ports: [{ name: 'http', protocol: 'TCP' }] }) },
    ]);
    expect(obj.spec).toEqual({ ports: [{ name: 'http', port: 80, protocol: 'TCP' }] });
    expect(owners(obj)['b/Apply']).toEqual({ 'f:spec': { 'f:ports': { 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:protocol': {} } } } });
  });

  it('13. multi-key map-list items are keyed by all keys, sorted', () => {
    const obj = run([{ apply: 'a', config: spec({ endpoints: [{ port: 1, host: 'h', weight: 5 }] }) }]);
    expect(owners(obj)).toEqual({
      'a/Apply': { 'f:spec': { 'f:endpoints': { 'k:{"host":"h","port":1}': { '.': {}, 'f:host': {}, 'f:port': {}, 'f:weight': {} } } } },
    });
  });

  it('14. an atomic struct is owned and compared whole', () => {
    const err = conflictOf([
      { apply: 'a', config: spec({ selector: { app: 'x' } }) },
      { apply: 'b', config: spec({ selector: { app: 'x', tier: 'y' } }) },
    ]);
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "a": .spec.selector');
    const shared = run([
      { apply: 'a', config: spec({ selector: { app: 'x' } }) },
      { apply: 'b', config: spec({ selector: { app: 'x' } }) },
    ]);
    expect(owners(shared)).toEqual({ 'a/Apply': { 'f:spec': { 'f:selector': {} } }, 'b/Apply': { 'f:spec': { 'f:selector': {} } } });
  });

  it('15. a granular map is owned key by key', () => {
    const obj = run([
      { apply: 'a', config: spec({ config: { k1: 'v1' } }) },
      { apply: 'b', config: spec({ config: { k2: 'v2' } }) },
    ]);
    expect(obj.spec).toEqual({ config: { k1: 'v1', k2: 'v2' } });
    expect(owners(obj)).toEqual({
      'a/Apply': { 'f:spec': { 'f:config': { 'f:k1': {} } } },
      'b/Apply': { 'f:spec': { 'f:config': { 'f:k2': {} } } },
    });
  });

  it('16. an atomic map is replaced whole and conflicts whole', () => {
    const err = conflictOf([
      { apply: 'a', config: spec({ env: { A: '1' } }) },
      { apply: 'b', config: spec({ env: { B: '2' } }) },
    ]);
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "a": .spec.env');
    const forced = run([
      { apply: 'a', config: spec({ env: { A: '1' } }) },
      { apply: 'b', config: spec({ env: { B: '2' } }), force: true },
    ]);
    expect(forced.spec).toEqual({ env: { B: '2' } });
  });

  it('17. an atomic list is replaced whole; force moves it to the new owner', () => {
    const obj = run([
      { apply: 'a', config: spec({ args: ['1'] }) },
      { apply: 'b', config: spec({ args: ['1', '2'] }), force: true },
    ]);
    expect(obj.spec).toEqual({ args: ['1', '2'] });
    expect(owners(obj)).toEqual({ 'b/Apply': { 'f:spec': { 'f:args': {} } } });
  });

  it('18. an update takes ownership of what it changes and never conflicts', () => {
    const obj = run([
      { apply: 'a', config: spec({ replicas: 1, tags: ['x'] }) },
      { update: 'u', object: setSpec({ replicas: 3, tags: ['x'] }) },
    ]);
    expect(owners(obj)).toEqual({ 'a/Apply': { 'f:spec': { 'f:tags': { 'v:"x"': {} } } }, 'u/Update': { 'f:spec': { 'f:replicas': {} } } });
  });

  it('19. fields an update removes leave every manager\'s set', () => {
    const obj = run([
      { apply: 'a', config: spec({ config: { k1: 'v1', k2: 'v2' } }) },
      { update: 'u', object: setSpec({ config: { k2: 'v2' } }) },
    ]);
    expect(owners(obj)).toEqual({ 'a/Apply': { 'f:spec': { 'f:config': { 'f:k2': {} } } } });
  });

  it('20. an apply changing an updater\'s field conflicts, naming its version', () => {
    const err = conflictOf([
      { update: 'kubectl-create', object: () => widget({ spec: { replicas: 1 } }) as KubeObject },
      { apply: 'kubectl', config: spec({ replicas: 2 }) },
    ]);
    expect(err.message).toBe(`Apply failed with 1 conflict: conflict with "kubectl-create" using ${V}: .spec.replicas`);
    expect(err.toStatusError().details?.causes).toEqual([{ reason: 'FieldManagerConflict', message: `conflict with "kubectl-create" using ${V}`, field: '.spec.replicas' }]);
  });

  it('21. several conflicts are grouped by manager, each field on its own line', () => {
    const err = conflictOf([
      { apply: 'a', config: spec({ replicas: 1, args: ['x'] }) },
      { update: 'u', object: setSpec({ replicas: 1, args: ['x'], tags: ['t'] }) },
      { apply: 'b', config: spec({ replicas: 2, args: ['y'], tags: ['t', 'z'] }) },
    ]);
    expect(err.message).toBe(
      ['Apply failed with 2 conflicts: conflicts with "a"', '- .spec.args', '- .spec.replicas'].join('\n'),
    );
    const both = conflictOf([
      { update: 'u', object: () => widget({ spec: { replicas: 1 } }) as KubeObject },
      { apply: 'a', config: spec({ replicas: 1, args: ['x'] }) },
      { apply: 'b', config: spec({ replicas: 2, args: ['y'] }) },
    ]);
    expect(both.message).toBe(
      [
        'Apply failed with 3 conflicts: conflicts with "a"',
        '- .spec.args',
        '- .spec.replicas',
        `conflicts with "u" using ${V}`,
        '- .spec.replicas',
      ].join('\n'),
    );
    expect(both.conflicts.map((c) => c.manager)).toEqual([
      '{"manager":"a","operation":"Apply"}',
      '{"manager":"a","operation":"Apply"}',
      `{"manager":"u","operation":"Update","apiVersion":"${V}"}`,
    ]);
  });

  it('22. managedFields of one empty entry clear all entries before the write is recorded', () => {
    const obj = run([
      { apply: 'a', config: spec({ replicas: 1, tags: ['x'] }) },
      { apply: 'b', config: spec({ args: ['y'] }) },
      {
        update: 'u',
        object: (live) => ({ ...setSpec({ replicas: 5, tags: ['x'], args: ['y'] })(live), metadata: { ...live!.metadata, managedFields: [{}] } }) as KubeObject,
      },
    ]);
    expect(owners(obj)).toEqual({ 'u/Update': { 'f:spec': { 'f:replicas': {} } } });
  });

  it('23. an empty managedFields list does not clear them', () => {
    const obj = run([
      { apply: 'a', config: spec({ replicas: 1 }) },
      { update: 'u', object: (live) => ({ ...live!, metadata: { ...live!.metadata, managedFields: [] } }) as KubeObject },
    ]);
    expect(owners(obj)).toEqual({ 'a/Apply': { 'f:spec': { 'f:replicas': {} } } });
  });

  it('24. valid managedFields sent by a client replace the live ones', () => {
    const sent = [{ manager: 'someone', operation: 'Update', apiVersion: V, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }];
    const obj = run([
      { apply: 'a', config: spec({ replicas: 1 }) },
      { update: 'u', object: (live) => ({ ...live!, metadata: { ...live!.metadata, managedFields: sent } }) as KubeObject },
    ]);
    expect(owners(obj)).toEqual({ 'someone/Update': { 'f:spec': { 'f:replicas': {} } } });
    // Invalid ones are ignored: the live entries stay.
    const bad = run([
      { apply: 'a', config: spec({ replicas: 1 }) },
      { update: 'u', object: (live) => ({ ...live!, metadata: { ...live!.metadata, managedFields: [{ manager: 'x', operation: 'Bogus' }] } }) as unknown as KubeObject },
    ]);
    expect(owners(bad)).toEqual({ 'a/Apply': { 'f:spec': { 'f:replicas': {} } } });
  });

  it('25. an update that changes nothing records nothing', () => {
    const obj = run([
      { apply: 'a', config: spec({ replicas: 1 }) },
      { update: 'u', object: (live) => live! },
    ]);
    expect(owners(obj)).toEqual({ 'a/Apply': { 'f:spec': { 'f:replicas': {} } } });
  });

  it('26. status is never owned by writes to the main resource and never conflicts', () => {
    const obj = run([
      { apply: 'a', config: widget({ spec: { replicas: 1 }, status: { phase: 'A' } }) },
      { apply: 'b', config: widget({ status: { phase: 'B' } }) },
    ]);
    expect(owners(obj)).toEqual({ 'a/Apply': { 'f:spec': { 'f:replicas': {} } } });
  });

  it('27. labels: an apply owns keys; an update that adds the map owns it with "."', () => {
    const obj = run([
      { apply: 'a', config: widget({}, { labels: { app: 'x' } }) },
      { update: 'u', object: (live) => ({ ...live!, metadata: { ...live!.metadata, annotations: { note: 'n' } } }) as KubeObject },
    ]);
    expect(owners(obj)).toEqual({
      'a/Apply': { 'f:metadata': { 'f:labels': { 'f:app': {} } } },
      'u/Update': { 'f:metadata': { 'f:annotations': { '.': {}, 'f:note': {} } } },
    });
  });

  it('28. an update by the same manager adds to its entry', () => {
    const obj = run([
      { update: 'u', object: () => widget({ spec: { replicas: 1 } }) as KubeObject },
      { update: 'u', object: setSpec({ replicas: 1, args: ['a'] }) },
    ]);
    expect(owners(obj)).toEqual({ 'u/Update': { 'f:spec': { '.': {}, 'f:args': {}, 'f:replicas': {} } } });
  });

  it('29. a manager with no name is recorded as unknown', () => {
    const obj = run([{ update: '', object: () => widget({ spec: { replicas: 1 } }) as KubeObject }]);
    expect(Object.keys(owners(obj))).toEqual(['unknown/Update']);
  });

  it('30. Update entries beyond ten are folded, oldest first, into ancient-changes', () => {
    const steps: Step[] = [];
    // Twelve managers each add a config key of their own.
    for (let i = 0; i < 12; i++) {
      steps.push({
        update: `m${i}`,
        object: (live) => {
          const config = { ...((live?.spec as { config?: Record<string, string> } | undefined)?.config ?? {}), [`k${i}`]: 'v' };
          return setSpec({ config })(live);
        },
      });
    }
    const obj = run(steps);
    const names = obj.metadata.managedFields!.map((e) => e.manager);
    expect(names).toHaveLength(10);
    expect(names).not.toContain('m0');
    expect(names).not.toContain('m1');
    // The oldest starts the bucket; the next two are folded into it.
    const bucket = obj.metadata.managedFields!.find((e) => e.manager === 'ancient-changes')!;
    expect(bucket.operation).toBe('Update');
    const keys = Object.keys((bucket.fieldsV1 as any)['f:spec']['f:config']).filter((k) => k !== '.');
    expect(keys).toHaveLength(3);
    expect(keys).toEqual(expect.arrayContaining(['f:k0', 'f:k1']));
  });

  it('31. entries are sorted Apply first, then by time, then by manager', () => {
    // The three writes within one second, as the order by manager is what this case shows.
    jest.useFakeTimers({ now: Date.parse('2026-01-01T00:00:00Z') });
    let obj: KubeObject;
    try {
      obj = run([
        { update: 'zeta', object: () => widget({ spec: { replicas: 1 } }) as KubeObject },
        { apply: 'beta', config: spec({ args: ['x'] }) },
        { apply: 'alpha', config: spec({ tags: ['t'] }) },
      ]);
    } finally {
      jest.useRealTimers();
    }
    expect(obj.metadata.managedFields!.map((e) => `${e.operation}:${e.manager}`)).toEqual(['Apply:alpha', 'Apply:beta', 'Update:zeta']);
  });

  it('32. an apply that changes nothing keeps its entry\'s time; a timestamp-only change is not a write', () => {
    const first = run([{ apply: 'a', config: spec({ replicas: 1 }) }]);
    const stale = structuredClone(first);
    stale.metadata.managedFields![0].time = '2000-01-01T00:00:00Z';
    const manager = new FieldManager({ apiVersion: V, schema: widgetSchema });
    const again = manager.apply(stale, spec({ replicas: 1 }), 'a', false);
    expect(again.metadata.managedFields![0].time).toBe('2000-01-01T00:00:00Z');
    const next = structuredClone(stale);
    next.metadata.managedFields![0].time = '2030-01-01T00:00:00Z';
    keepTimestampsOfNoopWrite(next, stale);
    expect(next.metadata.managedFields![0].time).toBe('2000-01-01T00:00:00Z');
  });

  it('34. kubectl server-side apply takes over the fields its client-side apply recorded', () => {
    const LAST = 'kubectl.kubernetes.io/last-applied-configuration';
    const csaConfig = widget({ spec: { replicas: 1, args: ['x'] } });
    const created = () => widget({ spec: { replicas: 1, args: ['x'] } }, { annotations: { [LAST]: JSON.stringify(csaConfig) } }) as KubeObject;
    const obj = run([
      { update: 'kubectl-client-side-apply', object: created },
      { apply: 'kubectl', config: spec({ replicas: 2, args: ['x'] }) },
    ]);
    expect(obj.spec).toEqual({ replicas: 2, args: ['x'] });
    expect(owners(obj)['kubectl/Apply']).toEqual({ 'f:spec': { 'f:args': {}, 'f:replicas': {} } });
    // The annotation now holds what kubectl applied, as Go encodes it.
    expect(obj.metadata.annotations![LAST]).toBe(`{"apiVersion":"${V}","kind":"Widget","metadata":{"name":"w"},"spec":{"args":["x"],"replicas":2}}\n`);

    // Another manager gets the conflict; so does kubectl once the live value left the annotation.
    expect(conflictOf([{ update: 'kubectl-client-side-apply', object: created }, { apply: 'other', config: spec({ replicas: 2 }) }]).message).toBe(
      `Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using ${V}: .spec.replicas`,
    );
    const drifted = conflictOf([
      { update: 'kubectl-client-side-apply', object: created },
      { update: 'scaler', object: setSpec({ replicas: 5, args: ['x'] }) },
      { apply: 'kubectl', config: spec({ replicas: 2 }) },
    ]);
    expect(drifted.message).toBe(`Apply failed with 1 conflict: conflict with "scaler" using ${V}: .spec.replicas`);
  });

  it('33. a real kind: a Role created by kubectl create, then applied by kubectl', () => {
    const rbac = 'rbac.authorization.platform.io/v1';
    const roles = new FieldManager({ apiVersion: rbac, schema: roleSchema });
    const role = { apiVersion: rbac, kind: 'Role', metadata: { name: 'r', namespace: 'ns' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] } as KubeObject;
    roles.update(null, role, 'kubectl-create');
    expect(owners(role)).toEqual({ 'kubectl-create/Update': { 'f:rules': {} } });
    expect(() => roles.apply(role, { apiVersion: rbac, kind: 'Role', metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }] }, 'kubectl', false)).toThrow(
      `Apply failed with 1 conflict: conflict with "kubectl-create" using ${rbac}: .rules`,
    );
  });
});

describe('manager of non-apply writes', () => {
  it('is fieldManager, else the User-Agent up to its first "/", printable and at most 128 bytes', () => {
    expect(managerOrUserAgent('mine', 'kubectl/v1.32')).toBe('mine');
    expect(managerOrUserAgent(undefined, 'kubectl/v1.32.4 (linux/amd64) kubernetes/abc')).toBe('kubectl');
    expect(managerOrUserAgent(undefined, 'Go-http-client/1.1')).toBe('Go-http-client');
    expect(prefixFromUserAgent('bad\u0007name\n/x')).toBe('badname');
    expect(prefixFromUserAgent('a'.repeat(200))).toHaveLength(128);
    expect(prefixFromUserAgent('é'.repeat(100))).toBe('é'.repeat(64));
    expect(managerOrUserAgent(undefined, undefined)).toBe('');
  });
});
