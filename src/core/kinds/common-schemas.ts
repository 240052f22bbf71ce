import { labelSelectorSchema } from '../../api/schema/meta';
import {
  AnySchema,
  atomicList,
  atomicStruct,
  boolean,
  dateTime,
  int64,
  integer,
  map,
  mapList,
  ScalarSchema,
  Schema,
  string,
  struct,
  StructSchema,
} from '../../api/schema/schema';

/**
 * core/v1 types several kinds share, with the merge markers of kube's Go types
 * (`+structType`, `+listType`, `+patchStrategy`...). Field names are exactly kube's.
 */

/** intstr.IntOrString: a string or an integer (`x-kubernetes-int-or-string`). */
export const intOrString = (): ScalarSchema => string('int-or-string');

/**
 * resource.Quantity: a string or any JSON number (`0.5` is a quantity, not an IntOrString).
 * The schema model has no scalar for that, so it is `any` here and the kinds check every
 * quantity's syntax themselves, answering 400 as kube's decoder does.
 */
export const quantity = (): AnySchema => ({ kind: 'any', description: 'resource.Quantity: a string or a number' });

/** core/v1 ResourceList: resource name to quantity. */
export const resourceList = () => map(quantity());

/** `+structType=atomic` references. */
export const objectReferenceFields = {
  kind: string(),
  namespace: string(),
  name: string(),
  uid: string(),
  apiVersion: string(),
  resourceVersion: string(),
  fieldPath: string(),
};
export const objectReferenceSchema = atomicStruct(objectReferenceFields);
export const localObjectReferenceSchema = atomicStruct({ name: string() });
export const secretReferenceSchema = atomicStruct({ name: string(), namespace: string() });
export const typedLocalObjectReferenceSchema = atomicStruct({ apiGroup: string(), kind: string(), name: string() }, { required: ['kind', 'name'] });
export const typedObjectReferenceSchema = struct({ apiGroup: string(), kind: string(), name: string(), namespace: string() }, { required: ['kind', 'name'] });

/** A list of LocalObjectReference merged by name (pod and service account imagePullSecrets use variants of it). */
export const localObjectReferenceMapList = () => mapList(localObjectReferenceSchema, ['name'], { patchStrategy: 'merge', patchMergeKey: 'name' });

export const keyToPathSchema = struct({ key: string(), path: string(), mode: integer() }, { required: ['key', 'path'] });

export const nodeSelectorRequirementSchema = struct(
  { key: string(), operator: string(), values: atomicList(string()) },
  { required: ['key', 'operator'] },
);

export const nodeSelectorTermSchema = atomicStruct({
  matchExpressions: atomicList(nodeSelectorRequirementSchema),
  matchFields: atomicList(nodeSelectorRequirementSchema),
});

export const nodeSelectorSchema = atomicStruct({ nodeSelectorTerms: atomicList(nodeSelectorTermSchema) }, { required: ['nodeSelectorTerms'] });

const podAffinityTermSchema = struct(
  {
    labelSelector: labelSelectorSchema,
    namespaces: atomicList(string()),
    topologyKey: string(),
    namespaceSelector: labelSelectorSchema,
    matchLabelKeys: atomicList(string()),
    mismatchLabelKeys: atomicList(string()),
  },
  { required: ['topologyKey'] },
);

const weightedPodAffinityTermSchema = struct({ weight: integer(), podAffinityTerm: podAffinityTermSchema }, { required: ['weight', 'podAffinityTerm'] });

const podAffinitySchema = () =>
  struct({
    requiredDuringSchedulingIgnoredDuringExecution: atomicList(podAffinityTermSchema),
    preferredDuringSchedulingIgnoredDuringExecution: atomicList(weightedPodAffinityTermSchema),
  });

export const affinitySchema = struct({
  nodeAffinity: struct({
    requiredDuringSchedulingIgnoredDuringExecution: nodeSelectorSchema,
    preferredDuringSchedulingIgnoredDuringExecution: atomicList(
      struct({ weight: integer(), preference: nodeSelectorTermSchema }, { required: ['weight', 'preference'] }),
    ),
  }),
  podAffinity: podAffinitySchema(),
  podAntiAffinity: podAffinitySchema(),
});

export const tolerationSchema = struct({ key: string(), operator: string(), value: string(), effect: string(), tolerationSeconds: int64() });

export const taintSchema = struct({ key: string(), value: string(), effect: string(), timeAdded: dateTime() }, { required: ['key', 'effect'] });

export const seLinuxOptionsSchema = struct({ user: string(), role: string(), type: string(), level: string() });
export const windowsSecurityContextOptionsSchema = struct({
  gmsaCredentialSpecName: string(),
  gmsaCredentialSpec: string(),
  runAsUserName: string(),
  hostProcess: boolean(),
});
export const seccompProfileSchema = struct({ type: string(), localhostProfile: string() }, { required: ['type'] });
export const appArmorProfileSchema = struct({ type: string(), localhostProfile: string() }, { required: ['type'] });

/** core/v1 ResourceRequirements (containers and pod-level resources). */
export const resourceRequirementsSchema = struct({
  limits: resourceList(),
  requests: resourceList(),
  claims: mapList(struct({ name: string(), request: string() }, { required: ['name'] }), ['name']),
});

/** core/v1 VolumeResourceRequirements (claims). */
export const volumeResourceRequirementsSchema = struct({ limits: resourceList(), requests: resourceList() });

/** A condition as most core kinds' status carries it. */
export function conditionSchema(extra: Record<string, Schema> = {}): StructSchema {
  return struct(
    { type: string(), status: string(), lastProbeTime: dateTime(), lastTransitionTime: dateTime(), reason: string(), message: string(), ...extra },
    { required: ['type', 'status'] },
  );
}

/** `+patchMergeKey=type +patchStrategy=merge +listType=map +listMapKey=type`, the usual conditions marker. */
export function conditionList(item: StructSchema = conditionSchema()) {
  return mapList(item, ['type'], { patchStrategy: 'merge', patchMergeKey: 'type' });
}
