import { AuthorizationAttributes } from '../../../src/authorization/authorizer';
import { NodeGraph } from '../../../src/authorization/node/graph';
import { applyPersistentVolume, applyPod } from '../../../src/authorization/node/graph-populator';
import { NodeAuthorizer } from '../../../src/authorization/node/node-authorizer';
import { FieldRequirement } from '../../../src/apimachinery/selectors/field-selector';
import { UserInfo } from '../../../src/apimachinery/user-info';
import { claimVolume, pod, pv, secretVolume } from './fixtures';

const node1: UserInfo = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };

function attrs(partial: Partial<AuthorizationAttributes>): AuthorizationAttributes {
  return {
    user: node1,
    verb: 'get',
    isResourceRequest: true,
    path: '',
    apiGroup: '',
    apiVersion: 'v1',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
    ...partial,
  };
}

const fieldSelector = (...requirements: FieldRequirement[]) => ({ requirements });
const nodeNameIs = (value: string): FieldRequirement => ({ field: 'spec.nodeName', operator: 'Equals', value });

describe('NodeAuthorizer', () => {
  const graph = new NodeGraph();
  applyPod(graph, pod('ns', 'web', { nodeName: 'n1', serviceAccountName: 'web-sa', volumes: [secretVolume('s', 'mine'), claimVolume('d', 'data')] }));
  applyPod(graph, pod('ns', 'other', { nodeName: 'n2', volumes: [secretVolume('s', 'theirs')] }));
  applyPersistentVolume(graph, pv('vol', { claimRef: { namespace: 'ns', name: 'data' }, hostPath: { path: '/d' } }));
  const plain = new NodeAuthorizer('node', graph, { authorizeWithSelectors: false });
  const selective = new NodeAuthorizer('node', graph, { authorizeWithSelectors: true });

  it.each<[string, Partial<AuthorizationAttributes>, 'Allow' | 'NoOpinion', string]>([
    ['get of a secret its pod uses', { resource: 'secrets', namespace: 'ns', name: 'mine' }, 'Allow', ''],
    ['get of a secret only another node uses', { resource: 'secrets', namespace: 'ns', name: 'theirs' }, 'NoOpinion', "no relationship found between node 'n1' and this object"],
    ['get of an unknown secret', { resource: 'secrets', namespace: 'ns', name: 'nobody' }, 'NoOpinion', "no relationship found between node 'n1' and this object"],
    ['list of secrets', { verb: 'list', resource: 'secrets', namespace: 'ns' }, 'NoOpinion', 'No Object name found'],
    ['watch of one related secret (metadata.name selector)', { verb: 'watch', resource: 'secrets', namespace: 'ns', name: 'mine' }, 'Allow', ''],
    ['list of secrets across namespaces', { verb: 'list', resource: 'secrets' }, 'NoOpinion', 'can only read namespaced object of this type'],
    ['update of a related secret', { verb: 'update', resource: 'secrets', namespace: 'ns', name: 'mine' }, 'NoOpinion', 'can only read resources of this type'],
    ['a secret subresource', { resource: 'secrets', subresource: 'x', namespace: 'ns', name: 'mine' }, 'NoOpinion', 'cannot read subresource'],
    ['get of its pod claim', { resource: 'persistentvolumeclaims', namespace: 'ns', name: 'data' }, 'Allow', ''],
    ['list of claims', { verb: 'list', resource: 'persistentvolumeclaims', namespace: 'ns' }, 'NoOpinion', 'can only get individual resources of this type'],
    ['status update of its claim', { verb: 'patch', resource: 'persistentvolumeclaims', subresource: 'status', namespace: 'ns', name: 'data' }, 'Allow', ''],
    ['status get of its claim', { resource: 'persistentvolumeclaims', subresource: 'status', namespace: 'ns', name: 'data' }, 'NoOpinion', 'can only get/update/patch this type'],
    ['get of the volume bound to its claim', { resource: 'persistentvolumes', name: 'vol' }, 'Allow', ''],
    ['get of a volume subresource', { resource: 'persistentvolumes', subresource: 'status', name: 'vol' }, 'NoOpinion', 'cannot get subresource'],
    ['token for its pod service account', { verb: 'create', resource: 'serviceaccounts', subresource: 'token', namespace: 'ns', name: 'web-sa' }, 'Allow', ''],
    ['token for another service account', { verb: 'create', resource: 'serviceaccounts', subresource: 'token', namespace: 'ns', name: 'default' }, 'NoOpinion', "no relationship found between node 'n1' and this object"],
    ['get of a service account', { resource: 'serviceaccounts', namespace: 'ns', name: 'web-sa' }, 'NoOpinion', 'can only create tokens for individual service accounts'],
    ['create of a service account subresource other than token', { verb: 'create', resource: 'serviceaccounts', subresource: 'x', namespace: 'ns', name: 'web-sa' }, 'NoOpinion', 'can only create token subresource of serviceaccount'],
    ['its own lease', { verb: 'update', apiGroup: 'coordination.platform.io', resource: 'leases', namespace: 'kube-node-lease', name: 'n1' }, 'Allow', ''],
    ['another node lease', { verb: 'update', apiGroup: 'coordination.platform.io', resource: 'leases', namespace: 'kube-node-lease', name: 'n2' }, 'NoOpinion', 'can only access node lease with the same name as the requesting node'],
    ['a lease elsewhere', { verb: 'get', apiGroup: 'coordination.platform.io', resource: 'leases', namespace: 'default', name: 'n1' }, 'NoOpinion', 'can only access leases in the "kube-node-lease" system namespace'],
    ['list of leases', { verb: 'list', apiGroup: 'coordination.platform.io', resource: 'leases', namespace: 'kube-node-lease' }, 'NoOpinion', 'can only get, create, update, patch, or delete a node lease'],
    ['its CSINode', { verb: 'patch', apiGroup: 'storage.platform.io', resource: 'csinodes', name: 'n1' }, 'Allow', ''],
    ['another CSINode', { verb: 'get', apiGroup: 'storage.platform.io', resource: 'csinodes', name: 'n2' }, 'NoOpinion', 'can only access CSINode with the same name as the requesting node'],
    // The static node rules.
    ['list of services', { verb: 'list', resource: 'services', namespace: 'ns' }, 'Allow', ''],
    ['get of endpoints', { resource: 'endpoints', namespace: 'ns', name: 'e' }, 'Allow', ''],
    ['list of endpoints', { verb: 'list', resource: 'endpoints', namespace: 'ns' }, 'NoOpinion', ''],
    ['list of all pods (no selector gates)', { verb: 'list', resource: 'pods' }, 'Allow', ''],
    ['get of any node (no selector gates)', { resource: 'nodes', name: 'n2' }, 'Allow', ''],
    ['update of node status', { verb: 'update', resource: 'nodes', subresource: 'status', name: 'n1' }, 'Allow', ''],
    ['delete of a node', { verb: 'delete', resource: 'nodes', name: 'n1' }, 'NoOpinion', ''],
    ['pod status', { verb: 'patch', resource: 'pods', subresource: 'status', namespace: 'ns', name: 'web' }, 'Allow', ''],
    ['pod eviction', { verb: 'create', resource: 'pods', subresource: 'eviction', namespace: 'ns', name: 'web' }, 'Allow', ''],
    ['pod update', { verb: 'update', resource: 'pods', namespace: 'ns', name: 'web' }, 'NoOpinion', ''],
    ['events', { verb: 'create', resource: 'events', namespace: 'ns' }, 'Allow', ''],
    ['token reviews', { verb: 'create', apiGroup: 'authentication.platform.io', resource: 'tokenreviews' }, 'Allow', ''],
    ['subject access reviews', { verb: 'create', apiGroup: 'authorization.platform.io', resource: 'subjectaccessreviews' }, 'Allow', ''],
    ['its certificate signing requests', { verb: 'create', apiGroup: 'certificates.platform.io', resource: 'certificatesigningrequests' }, 'Allow', ''],
    ['roles', { verb: 'list', apiGroup: 'rbac.authorization.platform.io', resource: 'roles', namespace: 'ns' }, 'NoOpinion', ''],
    ['a non-resource path', { verb: 'get', isResourceRequest: false, path: '/healthz' }, 'NoOpinion', ''],
  ])('%s', async (_, partial, decision, reason) => {
    const result = await plain.authorize(attrs(partial));
    expect(result.decision).toBe(decision);
    expect(result.reason ?? '').toBe(reason);
  });

  it('has no opinion about callers that are not nodes', async () => {
    const notInGroup = { username: 'system:node:n1', groups: ['system:authenticated'] };
    const otherName = { username: 'alice', groups: ['system:nodes'] };
    for (const user of [notInGroup, otherName]) {
      expect(await plain.authorize(attrs({ user, resource: 'secrets', namespace: 'ns', name: 'mine' }))).toEqual({ decision: 'NoOpinion', reason: '' });
    }
  });

  it('names the user when the node name is empty', async () => {
    const user = { username: 'system:node:', groups: ['system:nodes'] };
    expect(await plain.authorize(attrs({ user, verb: 'list', resource: 'services' }))).toEqual({
      decision: 'NoOpinion',
      reason: 'unknown node for user "system:node:"',
    });
  });

  it('reports node users rules as not enumerable, others as complete and empty', () => {
    expect(plain.rulesFor(node1)).toEqual({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      evaluationError: 'node authorizer does not support user rule resolution',
    });
    expect(plain.rulesFor({ username: 'alice', groups: [] })).toEqual({ resourceRules: [], nonResourceRules: [], incomplete: false });
  });

  describe('with AuthorizeNodeWithSelectors and AuthorizeWithSelectors', () => {
    it.each<[string, Partial<AuthorizationAttributes>, 'Allow' | 'NoOpinion', string]>([
      ['get of its own node', { resource: 'nodes', name: 'n1' }, 'Allow', ''],
      ['watch of its own node', { verb: 'watch', resource: 'nodes', name: 'n1' }, 'Allow', ''],
      ['get of another node', { resource: 'nodes', name: 'n2' }, 'NoOpinion', "node 'n1' cannot read 'n2', only its own Node object"],
      ['list of all nodes', { verb: 'list', resource: 'nodes' }, 'NoOpinion', "node 'n1' cannot read all nodes, only its own Node object"],
      ['create of a node', { verb: 'create', resource: 'nodes' }, 'Allow', ''],
      ['status of a node', { verb: 'patch', resource: 'nodes', subresource: 'status', name: 'n1' }, 'Allow', ''],
      ['delete of its node', { verb: 'delete', resource: 'nodes', name: 'n1' }, 'NoOpinion', ''],
      ['list of pods on its node', { verb: 'list', resource: 'pods', fieldSelector: fieldSelector(nodeNameIs('n1')) }, 'Allow', ''],
      ['watch of pods on its node (==)', { verb: 'watch', resource: 'pods', fieldSelector: fieldSelector({ field: 'spec.nodeName', operator: 'DoubleEquals', value: 'n1' }) }, 'Allow', ''],
      ['list of pods on another node', { verb: 'list', resource: 'pods', fieldSelector: fieldSelector(nodeNameIs('n2')) }, 'NoOpinion', 'can only list/watch pods with spec.nodeName field selector'],
      ['list of pods not on its node', { verb: 'list', resource: 'pods', fieldSelector: fieldSelector({ field: 'spec.nodeName', operator: 'NotEquals', value: 'n1' }) }, 'NoOpinion', 'can only list/watch pods with spec.nodeName field selector'],
      ['list of all pods', { verb: 'list', resource: 'pods' }, 'NoOpinion', 'can only list/watch pods with spec.nodeName field selector'],
      ['list of pods with an unparsable selector', { verb: 'list', resource: 'pods', fieldSelector: { requirements: [], error: 'bad' } }, 'NoOpinion', 'can only list/watch pods with spec.nodeName field selector'],
      ['watch of one of its pods by name', { verb: 'watch', resource: 'pods', namespace: 'ns', name: 'web' }, 'Allow', ''],
      ['watch of another node pod by name', { verb: 'watch', resource: 'pods', namespace: 'ns', name: 'other' }, 'NoOpinion', "no relationship found between node 'n1' and this object"],
      ['get of its pod', { resource: 'pods', namespace: 'ns', name: 'web' }, 'Allow', ''],
      ['get of another node pod', { resource: 'pods', namespace: 'ns', name: 'other' }, 'NoOpinion', "no relationship found between node 'n1' and this object"],
      ['create of a (mirror) pod', { verb: 'create', resource: 'pods', namespace: 'ns' }, 'Allow', ''],
      ['update of a pod', { verb: 'update', resource: 'pods', namespace: 'ns', name: 'web' }, 'NoOpinion', ''],
      ['list of its resource slices', { verb: 'list', apiGroup: 'resource.platform.io', resource: 'resourceslices', fieldSelector: fieldSelector({ field: 'nodeName', operator: 'Equals', value: 'n1' }) }, 'Allow', ''],
      ['list of all resource slices', { verb: 'list', apiGroup: 'resource.platform.io', resource: 'resourceslices' }, 'NoOpinion', 'can only list/watch/deletecollection resourceslices with nodeName field selector'],
    ])('%s', async (_, partial, decision, reason) => {
      const result = await selective.authorize(attrs(partial));
      expect(result.decision).toBe(decision);
      expect(result.reason ?? '').toBe(reason);
    });

    it('still answers secrets from the graph', async () => {
      expect((await selective.authorize(attrs({ resource: 'secrets', namespace: 'ns', name: 'mine' }))).decision).toBe('Allow');
    });
  });

  it('catches the graph up before a graph decision', async () => {
    let caughtUp = 0;
    const relations = { hasPathFrom: () => caughtUp > 0, catchUp: async () => void caughtUp++ };
    const authorizer = new NodeAuthorizer('node', relations, { authorizeWithSelectors: false });
    expect((await authorizer.authorize(attrs({ resource: 'configmaps', namespace: 'ns', name: 'c' }))).decision).toBe('Allow');
    expect(caughtUp).toBe(1);
  });
});
