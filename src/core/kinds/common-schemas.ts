import { labelSelectorSchema } from '../../runtime/schema/meta';
import {
  AnySchema,
  atomicList,
  atomicStruct,
  boolean,
  dateTime,
  field,
  FieldDeclaration,
  int64,
  integer,
  map,
  mapList,
  ScalarSchema,
  string,
  struct,
  StructSchema,
} from '../../runtime/schema/schema';

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
export const quantity = (): AnySchema => ({
  kind: 'any',
  description: 'Quantity is a fixed-point representation of a number: a string such as "500m", "1Gi" or "2", or a number.',
});

/** core/v1 ResourceList: resource name to quantity. */
export const resourceList = () => map(quantity());

/** `+structType=atomic` references. */
export const objectReferenceFields: Record<string, FieldDeclaration> = {
  kind: field(string(), 'Kind of the referent.'),
  namespace: field(string(), 'Namespace of the referent.'),
  name: field(string(), 'Name of the referent.'),
  uid: field(string(), 'UID of the referent.'),
  apiVersion: field(string(), 'API version of the referent.'),
  resourceVersion: field(string(), 'Specific resourceVersion to which this reference is made, if any.'),
  fieldPath: field(
    string(),
    'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].',
  ),
};
export const objectReferenceSchema = atomicStruct(objectReferenceFields, {
  description: 'ObjectReference contains enough information to let you inspect or modify the referred object.',
});
const REFERENT_NAME = 'Name of the referent.';
export const localObjectReferenceSchema = atomicStruct(
  { name: field(string(), REFERENT_NAME) },
  { description: 'LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace.' },
);
export const secretReferenceSchema = atomicStruct(
  {
    name: field(string(), 'name is unique within a namespace to reference a secret resource.'),
    namespace: field(string(), 'namespace defines the space within which the secret name must be unique.'),
  },
  { description: 'SecretReference represents a Secret Reference. It has enough information to retrieve secret in any namespace' },
);
const TYPED_REFERENCE = {
  apiGroup: field(
    string(),
    'APIGroup is the group for the resource being referenced. If APIGroup is not specified, the specified Kind must be in the core API group. For any other third-party types, APIGroup is required.',
  ),
  kind: field(string(), 'Kind is the type of resource being referenced'),
  name: field(string(), 'Name is the name of resource being referenced'),
};
export const typedLocalObjectReferenceSchema = atomicStruct(TYPED_REFERENCE, {
  required: ['kind', 'name'],
  description: 'TypedLocalObjectReference contains enough information to let you locate the typed referenced object inside the same namespace.',
});
export const typedObjectReferenceSchema = struct(
  {
    ...TYPED_REFERENCE,
    namespace: field(
      string(),
      "Namespace is the namespace of resource being referenced. A namespace other than the claim's needs a ReferenceGrant in the referent namespace.",
    ),
  },
  { required: ['kind', 'name'], description: 'TypedObjectReference contains enough information to let you locate the typed referenced object' },
);

/** A list of LocalObjectReference merged by name (pod and service account imagePullSecrets use variants of it). */
export const localObjectReferenceMapList = () => mapList(localObjectReferenceSchema, ['name'], { patchStrategy: 'merge', patchMergeKey: 'name' });

export const keyToPathSchema = struct(
  {
    key: field(string(), 'key is the key to project.'),
    path: field(
      string(),
      "path is the relative path of the file to map the key to. May not be an absolute path. May not contain the path element '..'. May not start with the string '..'.",
    ),
    mode: field(
      integer(),
      'mode is Optional: mode bits used to set permissions on this file. Must be an octal value between 0000 and 0777 or a decimal value between 0 and 511. If not specified, the volume defaultMode will be used.',
    ),
  },
  { required: ['key', 'path'], description: 'Maps a string key to a path within a volume.' },
);

export const nodeSelectorRequirementSchema = struct(
  {
    key: field(string(), 'The label key that the selector applies to.'),
    operator: field(string(), "Represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists, DoesNotExist. Gt, and Lt."),
    values: field(
      atomicList(string()),
      'An array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty. If the operator is Gt or Lt, the values array must have a single element, which will be interpreted as an integer.',
    ),
  },
  {
    required: ['key', 'operator'],
    description: 'A node selector requirement is a selector that contains values, a key, and an operator that relates the key and values.',
  },
);

export const nodeSelectorTermSchema = atomicStruct(
  {
    matchExpressions: field(atomicList(nodeSelectorRequirementSchema), "A list of node selector requirements by node's labels."),
    matchFields: field(atomicList(nodeSelectorRequirementSchema), "A list of node selector requirements by node's fields."),
  },
  {
    description:
      'A null or empty node selector term matches no objects. The requirements of them are ANDed. The TopologySelectorTerm type implements a subset of the NodeSelectorTerm.',
  },
);

export const nodeSelectorSchema = atomicStruct(
  { nodeSelectorTerms: field(atomicList(nodeSelectorTermSchema), 'Required. A list of node selector terms. The terms are ORed.') },
  {
    required: ['nodeSelectorTerms'],
    description: 'A node selector represents the union of the results of one or more label queries over a set of nodes; that is, it represents the OR of the selectors represented by the node selector terms.',
  },
);

const podAffinityTermSchema = struct(
  {
    labelSelector: field(labelSelectorSchema, 'A label query over a set of resources, in this case pods. If it\'s null, this PodAffinityTerm matches with no Pods.'),
    namespaces: field(
      atomicList(string()),
      'namespaces specifies a static list of namespace names that the term applies to. The term is applied to the union of the namespaces listed in this field and the ones selected by namespaceSelector. null or empty namespaces list and null namespaceSelector means "this pod\'s namespace".',
    ),
    topologyKey: field(
      string(),
      'This pod should be co-located (affinity) or not co-located (anti-affinity) with the pods matching the labelSelector in the specified namespaces, where co-located is defined as running on a node whose value of the label with key topologyKey matches that of any node on which any of the selected pods is running. Empty topologyKey is not allowed.',
    ),
    namespaceSelector: field(
      labelSelectorSchema,
      'A label query over the set of namespaces that the term applies to. The term is applied to the union of the namespaces selected by this field and the ones listed in the namespaces field. An empty selector ({}) matches all namespaces.',
    ),
    matchLabelKeys: field(
      atomicList(string()),
      "MatchLabelKeys is a set of pod label keys to select which pods will be taken into consideration. The keys are used to look up values from the incoming pod labels, and those key-value labels are merged with labelSelector as `key in (value)`.",
    ),
    mismatchLabelKeys: field(
      atomicList(string()),
      'MismatchLabelKeys is a set of pod label keys to select which pods will be taken into consideration. The keys are used to look up values from the incoming pod labels, and those key-value labels are merged with labelSelector as `key notin (value)`.',
    ),
  },
  {
    required: ['topologyKey'],
    description:
      'Defines a set of pods (namely those matching the labelSelector relative to the given namespace(s)) that this pod should be co-located (affinity) or not co-located (anti-affinity) with.',
  },
);

const weightedPodAffinityTermSchema = struct(
  {
    weight: field(integer(), 'weight associated with matching the corresponding podAffinityTerm, in the range 1-100.'),
    podAffinityTerm: field(podAffinityTermSchema, 'Required. A pod affinity term, associated with the corresponding weight.'),
  },
  { required: ['weight', 'podAffinityTerm'], description: 'The weights of all of the matched WeightedPodAffinityTerm fields are added per-node to find the most preferred node(s)' },
);

/** PodAffinity and PodAntiAffinity: the same fields, about co-location or its opposite. */
const podAffinitySchema = (relation: 'affinity' | 'anti-affinity') =>
  struct(
    {
      requiredDuringSchedulingIgnoredDuringExecution: field(
        atomicList(podAffinityTermSchema),
        `If the ${relation} requirements specified by this field are not met at scheduling time, the pod will not be scheduled onto the node. If they cease to be met during pod execution, the system may or may not try to eventually evict the pod. When there are multiple elements, the lists of nodes corresponding to each podAffinityTerm are intersected.`,
      ),
      preferredDuringSchedulingIgnoredDuringExecution: field(
        atomicList(weightedPodAffinityTermSchema),
        `The scheduler will prefer to schedule pods to nodes that satisfy the ${relation} expressions specified by this field, but it may choose a node that violates one or more of the expressions. The node(s) with the highest sum of weights of matching terms are the most preferred.`,
      ),
    },
    { description: `Pod ${relation} is a group of inter pod ${relation} scheduling rules.` },
  );

export const affinitySchema = struct(
  {
    nodeAffinity: field(
      struct(
        {
          requiredDuringSchedulingIgnoredDuringExecution: field(
            nodeSelectorSchema,
            'If the affinity requirements specified by this field are not met at scheduling time, the pod will not be scheduled onto the node. If they cease to be met during pod execution (e.g. due to an update), the system may or may not try to eventually evict the pod from its node.',
          ),
          preferredDuringSchedulingIgnoredDuringExecution: field(
            atomicList(
              struct(
                {
                  weight: field(integer(), 'Weight associated with matching the corresponding nodeSelectorTerm, in the range 1-100.'),
                  preference: field(nodeSelectorTermSchema, 'A node selector term, associated with the corresponding weight.'),
                },
                {
                  required: ['weight', 'preference'],
                  description: 'An empty preferred scheduling term matches all objects with implicit weight 0 (i.e. it\'s a no-op). A null preferred scheduling term matches no objects (i.e. is also a no-op).',
                },
              ),
            ),
            'The scheduler will prefer to schedule pods to nodes that satisfy the affinity expressions specified by this field, but it may choose a node that violates one or more of the expressions. The node(s) with the highest sum of weights of matching terms are the most preferred.',
          ),
        },
        { description: 'Node affinity is a group of node affinity scheduling rules.' },
      ),
      'Describes node affinity scheduling rules for the pod.',
    ),
    podAffinity: field(podAffinitySchema('affinity'), 'Describes pod affinity scheduling rules (e.g. co-locate this pod in the same node, zone, etc. as some other pod(s)).'),
    podAntiAffinity: field(
      podAffinitySchema('anti-affinity'),
      'Describes pod anti-affinity scheduling rules (e.g. avoid putting this pod in the same node, zone, etc. as some other pod(s)).',
    ),
  },
  { description: 'Affinity is a group of affinity scheduling rules.' },
);

export const tolerationSchema = struct(
  {
    key: field(string(), 'Key is the taint key that the toleration applies to. Empty means match all taint keys. If the key is empty, operator must be Exists.'),
    operator: field(string(), "Operator represents a key's relationship to the value. Valid operators are Exists and Equal. Defaults to Equal. Exists is equivalent to wildcard for value."),
    value: field(string(), 'Value is the taint value the toleration matches to. If the operator is Exists, the value should be empty, otherwise just a regular string.'),
    effect: field(
      string(),
      'Effect indicates the taint effect to match. Empty means match all taint effects. When specified, allowed values are NoSchedule, PreferNoSchedule and NoExecute.',
    ),
    tolerationSeconds: field(
      int64(),
      'TolerationSeconds represents the period of time the toleration (which must be of effect NoExecute, otherwise this field is ignored) tolerates the taint. By default, it is not set, which means tolerate the taint forever (do not evict).',
    ),
  },
  { description: 'The pod this Toleration is attached to tolerates any taint that matches the triple <key,value,effect> using the matching operator <operator>.' },
);

export const taintSchema = struct(
  {
    key: field(string(), 'Required. The taint key to be applied to a node.'),
    value: field(string(), 'The taint value corresponding to the taint key.'),
    effect: field(
      string(),
      'Required. The effect of the taint on pods that do not tolerate the taint. Valid effects are NoSchedule, PreferNoSchedule and NoExecute.',
    ),
    timeAdded: field(dateTime(), 'TimeAdded represents the time at which the taint was added.'),
  },
  { required: ['key', 'effect'], description: 'The node this Taint is attached to has the "effect" on any pod that does not tolerate the Taint.' },
);

export const seLinuxOptionsSchema = struct(
  {
    user: field(string(), 'User is a SELinux user label that applies to the container.'),
    role: field(string(), 'Role is a SELinux role label that applies to the container.'),
    type: field(string(), 'Type is a SELinux type label that applies to the container.'),
    level: field(string(), 'Level is SELinux level label that applies to the container.'),
  },
  { description: 'SELinuxOptions are the labels to be applied to the container' },
);
export const windowsSecurityContextOptionsSchema = struct(
  {
    gmsaCredentialSpecName: field(string(), 'GMSACredentialSpecName is the name of the GMSA credential spec to use.'),
    gmsaCredentialSpec: field(
      string(),
      'GMSACredentialSpec is where the GMSA admission webhook inlines the contents of the GMSA credential spec named by the GMSACredentialSpecName field.',
    ),
    runAsUserName: field(string(), 'The UserName in Windows to run the entrypoint of the container process. Defaults to the user specified in image metadata if unspecified.'),
    hostProcess: field(
      boolean(),
      "HostProcess determines if a container should be run as a 'Host Process' container. All of a Pod's containers must have the same effective HostProcess value.",
    ),
  },
  { description: 'WindowsSecurityContextOptions contain Windows-specific options and credentials.' },
);
const LOCALHOST_PROFILE = "localhostProfile indicates a profile loaded on the node should be used. The profile must be preconfigured on the node to work. Must be set if and only if type is \"Localhost\".";
export const seccompProfileSchema = struct(
  {
    type: field(
      string(),
      'type indicates which kind of seccomp profile will be applied. Valid options are: Localhost - a profile defined in a file on the node should be used. RuntimeDefault - the container runtime default profile should be used. Unconfined - no profile should be applied.',
    ),
    localhostProfile: field(string(), LOCALHOST_PROFILE),
  },
  { required: ['type'], description: "SeccompProfile defines a pod/container's seccomp profile settings. Only one profile source may be set." },
);
export const appArmorProfileSchema = struct(
  {
    type: field(
      string(),
      'type indicates which kind of AppArmor profile will be applied. Valid options are: Localhost - a profile pre-loaded on the node. RuntimeDefault - the container runtime\'s default profile. Unconfined - no AppArmor enforcement.',
    ),
    localhostProfile: field(string(), LOCALHOST_PROFILE),
  },
  { required: ['type'], description: "AppArmorProfile defines a pod or container's AppArmor settings." },
);

const LIMITS = 'Limits describes the maximum amount of compute resources allowed.';
const REQUESTS =
  'Requests describes the minimum amount of compute resources required. If Requests is omitted, it defaults to Limits if that is explicitly specified, otherwise to an implementation-defined value. Requests cannot exceed Limits.';

/** core/v1 ResourceRequirements (containers and pod-level resources). */
export const resourceRequirementsSchema = struct(
  {
    limits: field(resourceList(), LIMITS),
    requests: field(resourceList(), REQUESTS),
    claims: field(
      mapList(
        struct(
          {
            name: field(string(), 'Name must match the name of one entry in pod.spec.resourceClaims of the Pod where this field is used. It makes that resource available inside a container.'),
            request: field(string(), 'Request is the name chosen for a request in the referenced claim. If empty, everything from the claim is made available, otherwise only the result of this request.'),
          },
          { required: ['name'], description: 'ResourceClaim references one entry in PodSpec.ResourceClaims.' },
        ),
        ['name'],
      ),
      'Claims lists the names of resources, defined in spec.resourceClaims, that are used by this container. This field depends on the DynamicResourceAllocation feature gate and is immutable.',
    ),
  },
  { description: 'ResourceRequirements describes the compute resource requirements.' },
);

/** core/v1 VolumeResourceRequirements (claims). */
export const volumeResourceRequirementsSchema = struct(
  { limits: field(resourceList(), LIMITS), requests: field(resourceList(), REQUESTS) },
  { description: 'VolumeResourceRequirements describes the storage resource requirements for a volume.' },
);

/** The documentation of the fields every condition has. */
export const CONDITION_FIELDS = {
  type: 'Type is the type of the condition.',
  status: 'Status is the status of the condition. Can be True, False, Unknown.',
  lastTransitionTime: 'Last time the condition transitioned from one status to another.',
  reason: "Unique, one-word, CamelCase reason for the condition's last transition.",
  message: 'Human-readable message indicating details about last transition.',
};

/** A condition as most core kinds' status carries it. */
export function conditionSchema(extra: Record<string, FieldDeclaration> = {}): StructSchema {
  return struct(
    {
      type: field(string(), CONDITION_FIELDS.type),
      status: field(string(), CONDITION_FIELDS.status),
      lastProbeTime: field(dateTime(), 'Last time we probed the condition.'),
      lastTransitionTime: field(dateTime(), CONDITION_FIELDS.lastTransitionTime),
      reason: field(string(), CONDITION_FIELDS.reason),
      message: field(string(), CONDITION_FIELDS.message),
      ...extra,
    },
    { required: ['type', 'status'], description: 'A condition: an observation of one aspect of the current state of the object.' },
  );
}

/** `+patchMergeKey=type +patchStrategy=merge +listType=map +listMapKey=type`, the usual conditions marker. */
export function conditionList(item: StructSchema = conditionSchema()) {
  return mapList(item, ['type'], { patchStrategy: 'merge', patchMergeKey: 'type' });
}
