import { FieldError, fieldErrors, FieldPath } from '../../api/field-errors';
import { ResourceStrategy } from '../../api/resource-type';
import { atomicList, atomicStruct, boolean, dateTime, int64, integer, kindSchema, setList, string, struct } from '../../api/schema/schema';
import { objectMetaSchema } from '../../api/schema/meta';
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

export const nodeType = coreType<Node>({
  kind: 'Node',
  plural: 'nodes',
  shortNames: ['no'],
  namespaced: false,
  nameValidator: nameIsDNSSubdomain,
  schema: nodeSchema,
  strategy: nodeStrategy,
  selectableFields: [{ name: 'spec.unschedulable', value: (node: Node) => String(record(node.spec).unschedulable === true) }],
});
