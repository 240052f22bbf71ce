import { FieldError, fieldErrors, FieldPath } from '../../apimachinery/field-errors';
import { ResourceStrategy } from '../../runtime/schema/resource-type';
import { atomicList, atomicStruct, boolean, dateTime, field, int64, integer, kindSchema, setList, string, struct } from '../../runtime/schema/schema';
import { objectMetaSchema } from '../../runtime/schema/meta';
import { ageColumn, nameColumn } from '../../runtime/table/columns';
import { TableDefinition } from '../../runtime/table/table';
import { KubeObject } from '../../apimachinery/types';
import { validateLabelName } from '../../apimachinery/validation/labels';
import { isValidLabelValue, nameIsDNSSubdomain } from '../../apimachinery/validation/names';
import { list, record, str } from '../../apimachinery/validation/shape';
import { CONDITION_FIELDS, conditionList, resourceList, taintSchema } from './common-schemas';
import { coreType } from './core-type';
import { assertQuantities, requireString, validateOneOf } from './core-validation';

/** The core Node kind (v1, cluster-scoped). */

export interface Node extends KubeObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** kube lists the taint effects in this order in its error. */
export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

const nodeConfigSourceSchema = struct(
  {
    configMap: field(
      struct(
        {
          namespace: field(string(), 'Namespace is the metadata.namespace of the referenced ConfigMap. This field is required in all cases.'),
          name: field(string(), 'Name is the metadata.name of the referenced ConfigMap. This field is required in all cases.'),
          uid: field(string(), 'UID is the metadata.UID of the referenced ConfigMap. This field is forbidden in Node.Spec, and required in Node.Status.'),
          resourceVersion: field(string(), 'ResourceVersion is the metadata.ResourceVersion of the referenced ConfigMap. This field is forbidden in Node.Spec, and required in Node.Status.'),
          kubeletConfigKey: field(string(), 'KubeletConfigKey declares which key of the referenced ConfigMap corresponds to the KubeletConfiguration structure This field is required in all cases.'),
        },
        { required: ['namespace', 'name', 'kubeletConfigKey'], description: 'ConfigMapNodeConfigSource contains the information to reference a ConfigMap as a config source for the Node.' },
      ),
      'ConfigMap is a reference to a Node\'s ConfigMap',
    ),
  },
  { description: 'NodeConfigSource specifies a source of node configuration. Exactly one subfield (excluding metadata) must be non-nil. This API is deprecated since 1.22' },
);

const nodeSpecSchema = struct(
  {
    podCIDR: field(string(), 'PodCIDR represents the pod IP range assigned to the node.'),
    podCIDRs: field(
      setList(string(), { patchStrategy: 'merge' }),
      'podCIDRs represents the IP ranges assigned to the node for usage by Pods on that node. If this field is specified, the 0th entry must match the podCIDR field. It may contain at most 1 value for each of IPv4 and IPv6.',
    ),
    providerID: field(string(), 'ID of the node assigned by the cloud provider in the format: <ProviderName>://<ProviderSpecificNodeID>'),
    unschedulable: field(boolean(), 'Unschedulable controls node schedulability of new pods. By default, node is schedulable.'),
    taints: field(atomicList(taintSchema), "If specified, the node's taints."),
    configSource: field(nodeConfigSourceSchema, 'Deprecated: Previously used to specify the source of the node\'s configuration for the DynamicKubeletConfig feature. This feature is removed.'),
    externalID: field(string(), 'Deprecated. Not all kubelets will set this field. Remove field after 1.13.'),
  },
  { description: 'NodeSpec describes the attributes that a node is created with.' },
);

/** kube's NodeCondition: a heartbeat time where other kinds' conditions have lastProbeTime. */
const nodeConditionSchema = struct(
  {
    type: field(string(), 'Type of node condition.'),
    status: field(string(), CONDITION_FIELDS.status),
    lastHeartbeatTime: field(dateTime(), 'Last time we got an update on a given condition.'),
    lastTransitionTime: field(dateTime(), CONDITION_FIELDS.lastTransitionTime),
    reason: field(string(), "(brief) reason for the condition's last transition."),
    message: field(string(), CONDITION_FIELDS.message),
  },
  { required: ['type', 'status'], description: 'NodeCondition contains condition information for a node.' },
);

const CONFIG_SOURCE = (which: string) => `${which} reports the checkpointed config the node is using or will use. Deprecated with the DynamicKubeletConfig feature.`;

const nodeStatusSchema = struct(
  {
    capacity: field(resourceList(), 'Capacity represents the total resources of a node.'),
    allocatable: field(resourceList(), 'Allocatable represents the resources of a node that are available for scheduling. Defaults to Capacity.'),
    phase: field(string(), 'NodePhase is the recently observed lifecycle phase of the node. The field is never populated, and now is deprecated.'),
    conditions: field(conditionList(nodeConditionSchema), 'Conditions is an array of current observed node conditions.'),
    addresses: field(
      {
        ...atomicList(
          struct(
            {
              type: field(string(), 'Node address type, one of Hostname, ExternalIP or InternalIP.'),
              address: field(string(), 'The node address.'),
            },
            { required: ['type', 'address'], description: "NodeAddress contains information for the node's address." },
          ),
        ),
        patchStrategy: 'merge',
        patchMergeKey: 'type',
      },
      'List of addresses reachable to the node. Queried from cloud provider, if available. Consumers should assume that addresses can change during the lifetime of the Node.',
    ),
    daemonEndpoints: field(
      struct(
        {
          kubeletEndpoint: field(
            struct({ Port: field(integer(), 'Port number of the given endpoint.') }, { required: ['Port'], description: 'DaemonEndpoint contains information about a single Daemon endpoint.' }),
            'Endpoint on which Kubelet is listening.',
          ),
        },
        { description: 'NodeDaemonEndpoints lists ports opened by daemons running on the Node.' },
      ),
      'Endpoints of daemons running on the Node.',
    ),
    nodeInfo: field(
      struct(
        {
          machineID: field(string(), 'MachineID reported by the node. For unique machine identification in the cluster this field is preferred.'),
          systemUUID: field(string(), 'SystemUUID reported by the node. For unique machine identification MachineID is preferred.'),
          bootID: field(string(), 'Boot ID reported by the node.'),
          kernelVersion: field(string(), "Kernel Version reported by the node from 'uname -r'."),
          osImage: field(string(), 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).'),
          containerRuntimeVersion: field(string(), 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).'),
          kubeletVersion: field(string(), 'Kubelet Version reported by the node.'),
          kubeProxyVersion: field(string(), 'Deprecated: KubeProxy Version reported by the node.'),
          operatingSystem: field(string(), 'The Operating System reported by the node'),
          architecture: field(string(), 'The Architecture reported by the node'),
          swap: field(
            struct({ capacity: field(int64(), 'Total amount of swap memory in bytes.') }, { description: 'NodeSwapStatus represents swap memory information.' }),
            'Swap Info reported by the node.',
          ),
        },
        { description: 'NodeSystemInfo is a set of ids/uuids to uniquely identify the node.' },
      ),
      'Set of ids/uuids to uniquely identify the node.',
    ),
    images: field(
      atomicList(
        struct(
          {
            names: field(atomicList(string()), 'Names by which this image is known. e.g. ["registry.example/hyperkube:v1.0.7", "registry.example/hyperkube@sha256:..."]'),
            sizeBytes: field(int64(), 'The size of the image in bytes.'),
          },
          { description: 'Describe a container image' },
        ),
      ),
      'List of container images on this node',
    ),
    volumesInUse: field(atomicList(string()), 'List of attachable volumes in use (mounted) by the node.'),
    volumesAttached: field(
      atomicList(
        struct(
          { name: field(string(), 'Name of the attached volume'), devicePath: field(string(), 'DevicePath represents the device path where the volume should be available') },
          { required: ['name', 'devicePath'], description: 'AttachedVolume describes a volume attached to a node' },
        ),
      ),
      'List of volumes that are attached to the node.',
    ),
    config: field(
      struct(
        {
          assigned: field(nodeConfigSourceSchema, CONFIG_SOURCE('Assigned')),
          active: field(nodeConfigSourceSchema, CONFIG_SOURCE('Active')),
          lastKnownGood: field(nodeConfigSourceSchema, CONFIG_SOURCE('LastKnownGood')),
          error: field(string(), 'Error describes any problems reconciling the Spec.ConfigSource to the Active config.'),
        },
        { description: 'NodeConfigStatus describes the status of the config assigned by Node.Spec.ConfigSource.' },
      ),
      'Status of the config assigned to the node via the dynamic Kubelet config feature.',
    ),
    runtimeHandlers: field(
      atomicList(
        struct(
          {
            name: field(string(), 'Runtime handler name. Empty for the default runtime handler.'),
            features: field(
              struct(
                {
                  recursiveReadOnlyMounts: field(boolean(), 'RecursiveReadOnlyMounts is set to true if the runtime handler supports RecursiveReadOnlyMounts.'),
                  userNamespaces: field(boolean(), 'UserNamespaces is set to true if the runtime handler supports UserNamespaces, including for volumes.'),
                },
                { description: 'NodeRuntimeHandlerFeatures is a set of features implemented by the runtime handler.' },
              ),
              'Supported features.',
            ),
          },
          { description: 'NodeRuntimeHandler is a set of runtime handler information.' },
        ),
      ),
      'The available runtime handlers.',
    ),
    features: field(
      atomicStruct(
        {
          supplementalGroupsPolicy: field(boolean(), 'SupplementalGroupsPolicy is set to true if the runtime supports SupplementalGroupsPolicy and ContainerUser.'),
        },
        { description: 'NodeFeatures describes the set of features implemented by the CRI implementation.' },
      ),
      'Features describes the set of features implemented by the CRI implementation.',
    ),
  },
  { description: 'NodeStatus is information about the current status of a node.' },
);

export const nodeSchema = kindSchema(
  objectMetaSchema,
  {
    spec: field(nodeSpecSchema, 'Spec defines the behavior of a node.'),
    status: field(nodeStatusSchema, 'Most recently observed status of the node. Populated by the system. Read-only.'),
  },
  { description: 'Node is a worker node in Kubernetes. Each node has a unique identifier in the cache (i.e. in etcd).' },
);

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
