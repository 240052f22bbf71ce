import { FieldError, fieldErrors, FieldPath } from '../../api/field-errors';
import { ResourceStrategy } from '../../api/resource-type';
import { atomicList, atomicStruct, boolean, dateTime, int64, integer, kindSchema, setList, string, struct } from '../../api/schema/schema';
import { objectMetaSchema } from '../../api/schema/meta';
import { ageColumn, nameColumn } from '../../api/table/columns';
import { TableDefinition } from '../../api/table/table';
import { KubeObject } from '../../api/types';
import { validateLabelName } from '../../api/validation/labels';
import { isValidLabelValue, nameIsDNSSubdomain } from '../../api/validation/names';
import { list, record, str } from '../../api/validation/shape';
import { conditionList, resourceList, taintSchema } from './common-schemas';
import { coreType } from './core-type';
import { assertQuantities, requireString, validateOneOf } from './core-validation';

/** The core Node kind (v1, cluster-scoped). */

export interface Node extends KubeObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** kube lists the taint effects in this order in its error. */
export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

const nodeConfigSourceSchema = struct({
  configMap: struct(
    { namespace: string(), name: string(), uid: string(), resourceVersion: string(), kubeletConfigKey: string() },
    { required: ['namespace', 'name', 'kubeletConfigKey'] },
  ),
});

const nodeSpecSchema = struct({
  podCIDR: string(),
  podCIDRs: setList(string(), { patchStrategy: 'merge' }),
  providerID: string(),
  unschedulable: boolean(),
  taints: atomicList(taintSchema),
  configSource: nodeConfigSourceSchema,
  externalID: string(),
});

/** kube's NodeCondition: a heartbeat time where other kinds' conditions have lastProbeTime. */
const nodeConditionSchema = struct(
  { type: string(), status: string(), lastHeartbeatTime: dateTime(), lastTransitionTime: dateTime(), reason: string(), message: string() },
  { required: ['type', 'status'] },
);

const nodeStatusSchema = struct({
  capacity: resourceList(),
  allocatable: resourceList(),
  phase: string(),
  conditions: conditionList(nodeConditionSchema),
  addresses: { ...atomicList(struct({ type: string(), address: string() }, { required: ['type', 'address'] })), patchStrategy: 'merge', patchMergeKey: 'type' },
  daemonEndpoints: struct({ kubeletEndpoint: struct({ Port: integer() }, { required: ['Port'] }) }),
  nodeInfo: struct({
    machineID: string(),
    systemUUID: string(),
    bootID: string(),
    kernelVersion: string(),
    osImage: string(),
    containerRuntimeVersion: string(),
    kubeletVersion: string(),
    kubeProxyVersion: string(),
    operatingSystem: string(),
    architecture: string(),
    swap: struct({ capacity: int64() }),
  }),
  images: atomicList(struct({ names: atomicList(string()), sizeBytes: int64() })),
  volumesInUse: atomicList(string()),
  volumesAttached: atomicList(struct({ name: string(), devicePath: string() }, { required: ['name', 'devicePath'] })),
  config: struct({
    assigned: nodeConfigSourceSchema,
    active: nodeConfigSourceSchema,
    lastKnownGood: nodeConfigSourceSchema,
    error: string(),
  }),
  runtimeHandlers: atomicList(
    struct({ name: string(), features: struct({ recursiveReadOnlyMounts: boolean(), userNamespaces: boolean() }) }),
  ),
  features: atomicStruct({ supplementalGroupsPolicy: boolean() }),
});

export const nodeSchema = kindSchema(objectMetaSchema, { spec: nodeSpecSchema, status: nodeStatusSchema });

/** kube's validateNodeTaints: key a label name, value a label value, a known effect, unique by key and effect. */
export function validateTaints(taints: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list<unknown>(taints).forEach((raw, i) => {
    const taint = record(raw);
    const p = path.index(i);
    errs.push(...validateLabelName(str(taint.key), p.child('key')));
    const valueErrs = isValidLabelValue(str(taint.value));
    if (valueErrs.length) errs.push(fieldErrors.invalid(p.child('value'), str(taint.value), valueErrs.join(';')));
    if (!str(taint.effect)) errs.push(...requireString(taint.effect, p.child('effect')));
    else errs.push(...validateOneOf(taint.effect, TAINT_EFFECTS, p.child('effect')));
    const id = `${str(taint.effect)}\u0000${str(taint.key)}`;
    if (seen.has(id)) errs.push({ ...fieldErrors.duplicate(p, raw), detail: 'taints must be unique by key and effect pair' });
    seen.add(id);
  });
  return errs;
}

export function validateNode(node: Node): FieldError[] {
  return validateTaints(record(node.spec).taints, FieldPath.root('spec').child('taints'));
}

function assertNodeQuantities(node: Node): void {
  const status = record(node.status);
  assertQuantities('Node', [status.capacity, status.allocatable]);
}

export const nodeStrategy: ResourceStrategy<Node> = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  // A kubelet registers its node with its status, so create keeps what was sent.
  prepareForCreate: (node) => assertNodeQuantities(node),
  prepareForUpdate(node, old) {
    // Status changes only through the status subresource, which this server does not serve.
    if (old.status !== undefined) node.status = structuredClone(old.status);
    else delete node.status;
  },
  validate: (node) => validateNode(node),
  validateUpdate: (node) => validateNode(node),
};

/** Role labels kubectl shows (kube's `node-role.kubernetes.io/<role>` and `kubernetes.io/role`). */
const NODE_ROLE_LABEL_PREFIX = 'node-role.platform.io/';
const NODE_ROLE_LABEL = 'platform.io/role';

/** kube's STATUS: Ready or NotReady from the Ready condition (else Unknown), plus SchedulingDisabled. */
function nodeStatus(node: Node): string {
  const ready = list<unknown>(record(node.status).conditions).map(record).find((c) => c.type === 'Ready');
  const status = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (record(node.spec).unschedulable === true) status.push('SchedulingDisabled');
  return status.join(',');
}

/** kube's findNodeRoles: sorted, without duplicates; `<none>` when there is none. */
function nodeRoles(node: Node): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(record(node.metadata.labels))) {
    if (key.startsWith(NODE_ROLE_LABEL_PREFIX) && key.length > NODE_ROLE_LABEL_PREFIX.length) roles.add(key.slice(NODE_ROLE_LABEL_PREFIX.length));
    else if (key === NODE_ROLE_LABEL && str(value)) roles.add(str(value));
  }
  return [...roles].sort().join(',') || '<none>';
}

/** The first address of a type, as kube's getNodeInternalIP / getNodeExternalIP. */
function nodeAddress(node: Node, type: string): string {
  const found = list<unknown>(record(node.status).addresses).map(record).find((a) => a.type === type);
  return found ? str(found.address) : '<none>';
}

const nodeInfo = (node: Node, field: string): string => str(record(record(node.status).nodeInfo)[field]);
const ADDRESSES_DESCRIPTION =
  "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).";

/** kube's Node printer; the `-o wide` columns print `<none>` / `<unknown>` for what is not reported. */
export const nodeTable: TableDefinition<Node> = {
  columns: [
    nameColumn,
    { name: 'Status', type: 'string', description: 'The status of the node', cell: nodeStatus },
    { name: 'Roles', type: 'string', description: 'The roles of the node', cell: nodeRoles },
    ageColumn,
    { name: 'Version', type: 'string', description: 'Kubelet Version reported by the node.', cell: (n) => nodeInfo(n, 'kubeletVersion') },
    { name: 'Internal-IP', type: 'string', priority: 1, description: ADDRESSES_DESCRIPTION, cell: (n) => nodeAddress(n, 'InternalIP') },
    { name: 'External-IP', type: 'string', priority: 1, description: ADDRESSES_DESCRIPTION, cell: (n) => nodeAddress(n, 'ExternalIP') },
    {
      name: 'OS-Image',
      type: 'string',
      priority: 1,
      description: 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
      cell: (n) => nodeInfo(n, 'osImage') || '<unknown>',
    },
    {
      name: 'Kernel-Version',
      type: 'string',
      priority: 1,
      description: "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
      cell: (n) => nodeInfo(n, 'kernelVersion') || '<unknown>',
    },
    {
      name: 'Container-Runtime',
      type: 'string',
      priority: 1,
      description: 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
      cell: (n) => nodeInfo(n, 'containerRuntimeVersion') || '<unknown>',
    },
  ],
};

export const nodeType = coreType<Node>({
  kind: 'Node',
  plural: 'nodes',
  shortNames: ['no'],
  namespaced: false,
  nameValidator: nameIsDNSSubdomain,
  schema: nodeSchema,
  strategy: nodeStrategy,
  selectableFields: [{ name: 'spec.unschedulable', value: (node: Node) => String(record(node.spec).unschedulable === true) }],
  table: nodeTable,
});
