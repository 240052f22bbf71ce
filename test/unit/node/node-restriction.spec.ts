import { StatusError } from '../../../src/apimachinery/errors';
import { AdmissionOperation } from '../../../src/registry/rest/admission';
import { ResourceType } from '../../../src/runtime/schema/resource-type';
import { objectKey } from '../../../src/apimachinery/store-key';
import { KubeObject } from '../../../src/apimachinery/types';
import { UserInfo } from '../../../src/apimachinery/user-info';
import { nodeType } from '../../../src/core/kinds/node';
import { persistentVolumeClaimType } from '../../../src/core/kinds/persistent-volume-claim';
import { podType } from '../../../src/core/kinds/pod';
import { secretType } from '../../../src/core/kinds/secret';
import { forbiddenNodeLabels } from '../../../src/core/node-labels';
import { NodeRestrictionAdmission } from '../../../src/core/node-restriction';
import { MemoryStore } from '../../support/memory-store';
import { pod, secretVolume } from './fixtures';

const node1: UserInfo = { username: 'system:node:n1', groups: ['system:nodes'] };
const admin: UserInfo = { username: 'admin', groups: ['system:masters'] };
const MIRROR = { 'platform.io/config.mirror': 'hash' };

describe('NodeRestriction admission', () => {
  let store: MemoryStore;
  let plugin: NodeRestrictionAdmission;
  const nodeUid = 'uid-node-n1';

  beforeEach(async () => {
    store = new MemoryStore();
    await store.create(objectKey(nodeType, '', 'n1'), { metadata: { name: 'n1', uid: nodeUid } });
    plugin = new NodeRestrictionAdmission(store);
  });

  async function admit(operation: AdmissionOperation, type: ResourceType, object: KubeObject, opts: { user?: UserInfo; old?: KubeObject; name?: string } = {}) {
    const name = opts.name ?? object.metadata.name ?? '';
    const target = { type, groupResource: { group: '', resource: type.plural }, namespace: object.metadata.namespace ?? '', name };
    return plugin.admit({ operation, target, object, old: opts.old, options: { user: opts.user ?? node1, dryRun: false } });
  }

  async function refusal(promise: Promise<void>): Promise<{ code: number; message: string }> {
    try {
      await promise;
    } catch (err) {
      if (err instanceof StatusError) return { code: err.code, message: err.message };
      throw err;
    }
    throw new Error('expected the request to be refused');
  }

  const owner = (extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: nodeUid, controller: true, ...extra });
  const mirrorPod = (spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) =>
    pod('ns', 'static', { nodeName: 'n1', ...spec }, { annotations: MIRROR, ownerReferences: [owner()], ...metadata });

  it('leaves callers that are not nodes alone', async () => {
    await expect(admit('CREATE', podType, pod('ns', 'p', { nodeName: 'n2' }), { user: admin })).resolves.toBeUndefined();
    await expect(admit('UPDATE', nodeType, { metadata: { name: 'n2' } }, { user: { username: 'system:node:n1', groups: [] } })).resolves.toBeUndefined();
  });

  it('lets a node create a mirror pod bound to itself that references nothing', async () => {
    await expect(admit('CREATE', podType, mirrorPod())).resolves.toBeUndefined();
  });

  it.each<[string, () => KubeObject, string]>([
    ['a pod without the mirror annotation', () => pod('ns', 'p', { nodeName: 'n1' }), 'pods "p" is forbidden: pod does not have "platform.io/config.mirror" annotation, node "n1" can only create mirror pods'],
    ['a mirror pod for another node', () => mirrorPod({ nodeName: 'n2' }), 'pods "static" is forbidden: node "n1" can only create pods with spec.nodeName set to itself'],
    ['a mirror pod without owner', () => mirrorPod({}, { ownerReferences: [] }), 'pods "static" is forbidden: node "n1" can only create pods with an owner reference set to itself'],
    ['a mirror pod owned by another node', () => mirrorPod({}, { ownerReferences: [owner({ name: 'n2' })] }), 'pods "static" is forbidden: node "n1" can only create pods with an owner reference set to itself'],
    ['a mirror pod with a non-controller owner', () => mirrorPod({}, { ownerReferences: [owner({ controller: false })] }), 'pods "static" is forbidden: node "n1" can only create pods with a controller owner reference set to itself'],
    ['a mirror pod blocking owner deletion', () => mirrorPod({}, { ownerReferences: [owner({ blockOwnerDeletion: true })] }), 'pods "static" is forbidden: node "n1" must not set blockOwnerDeletion on an owner reference'],
    ['a mirror pod with a stale node uid', () => mirrorPod({}, { ownerReferences: [owner({ uid: 'old' })] }), `pods "static" is forbidden: node n1 UID mismatch: expected old got ${nodeUid}`],
    ['a mirror pod with a service account', () => mirrorPod({ serviceAccountName: 'sa' }), 'pods "static" is forbidden: node "n1" can not create pods that reference a service account'],
    ['a mirror pod using a secret', () => mirrorPod({ volumes: [secretVolume('v', 's')] }), 'pods "static" is forbidden: node "n1" can not create pods that reference secrets'],
    ['a mirror pod using a config map', () => mirrorPod({ containers: [{ name: 'c', image: 'i', envFrom: [{ configMapRef: { name: 'cm' } }] }] }), 'pods "static" is forbidden: node "n1" can not create pods that reference configmaps'],
    ['a mirror pod using a claim', () => mirrorPod({ volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'c' } }] }), 'pods "static" is forbidden: node "n1" can not create pods that reference persistentvolumeclaims'],
  ])('refuses %s', async (_, build, message) => {
    expect(await refusal(admit('CREATE', podType, build()))).toEqual({ code: 403, message });
  });

  it('answers 404 when the owning node does not exist', async () => {
    await store.delete(objectKey(nodeType, '', 'n1'));
    expect(await refusal(admit('CREATE', podType, mirrorPod()))).toEqual({ code: 404, message: 'node "n1" not found' });
  });

  it('lets a node delete only pods bound to itself, and update none', async () => {
    await expect(admit('DELETE', podType, pod('ns', 'mine', { nodeName: 'n1' }))).resolves.toBeUndefined();
    expect(await refusal(admit('DELETE', podType, pod('ns', 'theirs', { nodeName: 'n2' })))).toEqual({
      code: 403,
      message: 'pods "theirs" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself',
    });
    expect(await refusal(admit('UPDATE', podType, pod('ns', 'mine', { nodeName: 'n1' })))).toEqual({
      code: 403,
      message: 'pods "mine" is forbidden: unexpected operation "UPDATE", node "n1" can only create and delete mirror pods',
    });
  });

  it('lets a node modify only its own Node object', async () => {
    await expect(admit('CREATE', nodeType, { metadata: { name: 'n1', labels: { 'platform.io/hostname': 'n1', team: 'a' } } })).resolves.toBeUndefined();
    await expect(admit('DELETE', nodeType, { metadata: { name: 'n1' } })).resolves.toBeUndefined();
    for (const op of ['CREATE', 'UPDATE', 'DELETE'] as const) {
      expect(await refusal(admit(op, nodeType, { metadata: { name: 'n2' } }, { old: { metadata: { name: 'n2' } } }))).toEqual({
        code: 403,
        message: 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"',
      });
    }
  });

  it('keeps a node from setting restricted labels, taints and config sources', async () => {
    expect(await refusal(admit('CREATE', nodeType, { metadata: { name: 'n1', labels: { 'node-restriction.platform.io/pool': 'gpu', 'platform.io/role': 'x' } } }))).toEqual({
      code: 403,
      message: 'nodes "n1" is forbidden: node "n1" is not allowed to set the following labels: node-restriction.platform.io/pool, platform.io/role',
    });
    expect(await refusal(admit('CREATE', nodeType, { metadata: { name: 'n1' }, spec: { configSource: { configMap: {} } } }))).toEqual({
      code: 403,
      message: 'nodes "n1" is forbidden: node "n1" is not allowed to create pods with a non-nil configSource',
    });
    const old: KubeObject = { metadata: { name: 'n1', labels: { 'sub.node-restriction.platform.io/a': 'x', keep: 'y' } }, spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } };
    expect(await refusal(admit('UPDATE', nodeType, { metadata: { name: 'n1', labels: { keep: 'y' } }, spec: old.spec }, { old }))).toEqual({
      code: 403,
      message: 'nodes "n1" is forbidden: is not allowed to modify labels: sub.node-restriction.platform.io/a',
    });
    expect(await refusal(admit('UPDATE', nodeType, { metadata: old.metadata, spec: { taints: [] } }, { old }))).toEqual({
      code: 403,
      message: 'nodes "n1" is forbidden: node "n1" is not allowed to modify taints',
    });
    // Status-style updates that keep labels and taints pass; other labels are the node's to set.
    await expect(admit('UPDATE', nodeType, { metadata: { ...old.metadata, labels: { ...old.metadata.labels, team: 'b' } }, spec: old.spec, status: {} }, { old })).resolves.toBeUndefined();
  });

  it('refuses any claim write and leaves other kinds alone', async () => {
    expect(await refusal(admit('UPDATE', persistentVolumeClaimType, { metadata: { namespace: 'ns', name: 'c' } }))).toEqual({
      code: 403,
      message: 'persistentvolumeclaims "c" is forbidden: may only update PVC status',
    });
    await expect(admit('CREATE', secretType, { metadata: { namespace: 'ns', name: 's' } })).resolves.toBeUndefined();
  });

  it('refuses a node identity without a name', async () => {
    expect(await refusal(admit('CREATE', secretType, { metadata: { namespace: 'ns', name: 's' } }, { user: { username: 'system:node:', groups: ['system:nodes'] } }))).toEqual({
      code: 403,
      message: 'secrets "s" is forbidden: could not determine node from user "system:node:"',
    });
  });
});

describe('node label policy', () => {
  it('allows kubelet labels and other domains, forbids restricted and unknown platform.io labels', () => {
    expect(
      forbiddenNodeLabels([
        'platform.io/hostname',
        'topology.platform.io/zone',
        'kubelet.platform.io/x',
        'foo.node.platform.io/y',
        'example.com/team',
        'plain',
        'platform.io/other',
        'node-restriction.platform.io/a',
        'x.platform.io/b',
      ]),
    ).toEqual(['node-restriction.platform.io/a', 'platform.io/other', 'x.platform.io/b']);
  });
});
