import { controllerEnabled } from '../../../src/config/controllers';
import { FlagError, parseServerFlags } from '../../../src/config/flags';
import { Clock } from '../../../src/apimachinery/clock';
import { KubeObject } from '../../../src/apimachinery/types';
import { ResourceType } from '../../../src/runtime/schema/resource-type';
import { BindingExpiryController } from '../../../src/controllers/binding-expiry';
import { ControllerContext } from '../../../src/controllers/controller-context';
import { VALID_UNTIL_ANNOTATION } from '../../../src/apis/rbac/binding-window';
import { clusterRoleBinding, roleBinding, U } from '../authorization/rbac-fixtures';

/** The binding-expiry controller: what it deletes, and when it asks to run again. */

const HOUR = 3600_000;
const at = (text: string) => Date.parse(text);

function until<T extends { metadata: Record<string, unknown> }>(binding: T, validUntil: string): T {
  return { ...binding, metadata: { ...binding.metadata, uid: `uid-${String(binding.metadata.name)}`, annotations: { [VALID_UNTIL_ANNOTATION]: validUntil } } };
}

/** A context over fixed lists that records deletions. */
function fakeContext(objects: Record<string, KubeObject[]>) {
  const deleted: string[] = [];
  const ctx = {
    list: async (type: ResourceType) => objects[type.plural] ?? [],
    // The informer's index, as the shared informer files each object.
    byIndex: (type: ResourceType, _index: string, indexFn: (obj: KubeObject) => string[], value: string) => (objects[type.plural] ?? []).filter((o) => indexFn(o).includes(value)),
    delete: async (type: ResourceType, object: KubeObject) => {
      deleted.push(`${type.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`);
      return true;
    },
  } as unknown as ControllerContext;
  return { ctx, deleted };
}

describe('binding-expiry controller', () => {
  const clock: Clock = { now: () => at('2026-03-02T12:00:00Z') };
  const objects = {
    rolebindings: [
      until(roleBinding('ns', 'long-gone', 'ClusterRole', 'view', [U('a')]), '2026-03-01T11:59:59Z'),
      until(roleBinding('ns', 'just-due', 'ClusterRole', 'view', [U('a')]), '2026-03-01T14:00:00+02:00'),
      until(roleBinding('ns', 'recent', 'ClusterRole', 'view', [U('a')]), '2026-03-02T11:00:00Z'),
      roleBinding('ns', 'permanent', 'ClusterRole', 'view', [U('a')]),
    ],
    clusterrolebindings: [until(clusterRoleBinding('later', 'view', [U('a')]), '2026-03-03T00:00:00Z')],
  };

  it('deletes bindings whose valid-until is at least the retention ago, and wakes for the next one', async () => {
    const { ctx, deleted } = fakeContext(objects);
    const next = await new BindingExpiryController(ctx, 24 * HOUR, clock).sync();
    expect(deleted).toEqual(['RoleBinding/ns/long-gone', 'RoleBinding/ns/just-due']);
    expect(next).toBe(at('2026-03-03T11:00:00Z'));
  });

  it('with a short retention deletes what expired longer ago than it', async () => {
    const { ctx, deleted } = fakeContext(objects);
    const next = await new BindingExpiryController(ctx, 2 * HOUR, clock).sync();
    expect(deleted).toEqual(['RoleBinding/ns/long-gone', 'RoleBinding/ns/just-due']);
    expect(next).toBe(at('2026-03-02T13:00:00Z'));
    const { ctx: ctx2, deleted: deleted2 } = fakeContext(objects);
    await new BindingExpiryController(ctx2, 1000, clock).sync();
    expect(deleted2).toEqual(['RoleBinding/ns/long-gone', 'RoleBinding/ns/just-due', 'RoleBinding/ns/recent']);
  });

  it('has nothing to wait for without time-bound bindings', async () => {
    const { ctx, deleted } = fakeContext({ rolebindings: [roleBinding('ns', 'permanent', 'ClusterRole', 'view', [U('a')])] });
    expect(await new BindingExpiryController(ctx, HOUR, clock).sync()).toBeUndefined();
    expect(deleted).toEqual([]);
  });
});

describe('--expired-binding-retention', () => {
  it('defaults to 24h, takes Go durations, and 0 keeps expired bindings', () => {
    expect(parseServerFlags([], {}).expiredBindingRetentionMs).toBe(24 * HOUR);
    expect(parseServerFlags(['--expired-binding-retention=1m30s'], {}).expiredBindingRetentionMs).toBe(90_000);
    expect(parseServerFlags(['--expired-binding-retention', '0'], {}).expiredBindingRetentionMs).toBe(0);
    expect(controllerEnabled(['*'], 'binding-expiry')).toBe(true);
  });

  it('refuses what is not a duration, naming the flag', () => {
    expect(() => parseServerFlags(['--expired-binding-retention=1day'], {})).toThrow(
      new FlagError('invalid argument "1day" for "--expired-binding-retention" flag: time: unknown unit "day" in duration "1day"'),
    );
    expect(() => parseServerFlags(['--expired-binding-retention=-1h'], {})).toThrow(
      new FlagError('invalid argument "-1h" for "--expired-binding-retention" flag: "-1h" must not be negative'),
    );
  });
});
