import {
  atomicList,
  atomicStruct,
  boolean,
  dateTime,
  int64,
  integer,
  kindSchema,
  map,
  mapList,
  Schema,
  string,
  struct,
  StructSchema,
} from '../../api/schema/schema';
import { labelSelectorSchema, objectMetaSchema } from '../../api/schema/meta';
import {
  affinitySchema,
  appArmorProfileSchema,
  conditionList,
  conditionSchema,
  intOrString,
  localObjectReferenceMapList,
  quantity,
  resourceList,
  resourceRequirementsSchema,
  seccompProfileSchema,
  seLinuxOptionsSchema,
  tolerationSchema,
  windowsSecurityContextOptionsSchema,
} from './common-schemas';
import { podVolumeSourceFields } from './volume-schemas';

/** core/v1 Pod with kube's field names and merge markers. */

const optionalName = { name: string(), optional: boolean() };

const envVarSourceSchema = struct({
  fieldRef: atomicStruct({ apiVersion: string(), fieldPath: string() }, { required: ['fieldPath'] }),
  resourceFieldRef: atomicStruct({ containerName: string(), resource: string(), divisor: quantity() }, { required: ['resource'] }),
  configMapKeyRef: atomicStruct({ ...optionalName, key: string() }, { required: ['key'] }),
  secretKeyRef: atomicStruct({ ...optionalName, key: string() }, { required: ['key'] }),
});

const envVarSchema = struct({ name: string(), value: string(), valueFrom: envVarSourceSchema }, { required: ['name'] });

const envFromSourceSchema = struct({
  prefix: string(),
  configMapRef: struct(optionalName),
  secretRef: struct(optionalName),
});

const containerPortSchema = struct(
  { name: string(), hostPort: integer(), containerPort: integer(), protocol: string(), hostIP: string() },
  { required: ['containerPort'] },
);

const volumeMountSchema = struct(
  {
    name: string(),
    readOnly: boolean(),
    recursiveReadOnly: string(),
    mountPath: string(),
    subPath: string(),
    mountPropagation: string(),
    subPathExpr: string(),
  },
  { required: ['name', 'mountPath'] },
);

const httpGetSchema = struct(
  {
    path: string(),
    port: intOrString(),
    host: string(),
    scheme: string(),
    httpHeaders: atomicList(struct({ name: string(), value: string() }, { required: ['name', 'value'] })),
  },
  { required: ['port'] },
);

const handlerFields: Record<string, Schema> = {
  exec: struct({ command: atomicList(string()) }),
  httpGet: httpGetSchema,
  tcpSocket: struct({ port: intOrString(), host: string() }, { required: ['port'] }),
};

const probeSchema = struct({
  ...handlerFields,
  grpc: struct({ port: integer(), service: string() }, { required: ['port'] }),
  initialDelaySeconds: integer(),
  timeoutSeconds: integer(),
  periodSeconds: integer(),
  successThreshold: integer(),
  failureThreshold: integer(),
  terminationGracePeriodSeconds: int64(),
});

const lifecycleHandlerSchema = struct({ ...handlerFields, sleep: struct({ seconds: int64() }, { required: ['seconds'] }) });

const securityContextSchema = struct({
  capabilities: struct({ add: atomicList(string()), drop: atomicList(string()) }),
  privileged: boolean(),
  seLinuxOptions: seLinuxOptionsSchema,
  windowsOptions: windowsSecurityContextOptionsSchema,
  runAsUser: int64(),
  runAsGroup: int64(),
  runAsNonRoot: boolean(),
  readOnlyRootFilesystem: boolean(),
  allowPrivilegeEscalation: boolean(),
  procMount: string(),
  seccompProfile: seccompProfileSchema,
  appArmorProfile: appArmorProfileSchema,
});

/** Fields of Container, which EphemeralContainer shares (plus targetContainerName). */
const containerFields: Record<string, Schema> = {
  name: string(),
  image: string(),
  command: atomicList(string()),
  args: atomicList(string()),
  workingDir: string(),
  ports: mapList(containerPortSchema, ['containerPort', 'protocol'], { patchStrategy: 'merge', patchMergeKey: 'containerPort' }),
  envFrom: atomicList(envFromSourceSchema),
  env: mapList(envVarSchema, ['name'], { patchStrategy: 'merge', patchMergeKey: 'name' }),
  resources: resourceRequirementsSchema,
  resizePolicy: atomicList(struct({ resourceName: string(), restartPolicy: string() }, { required: ['resourceName', 'restartPolicy'] })),
  restartPolicy: string(),
  volumeMounts: mapList(volumeMountSchema, ['mountPath'], { patchStrategy: 'merge', patchMergeKey: 'mountPath' }),
  volumeDevices: mapList(struct({ name: string(), devicePath: string() }, { required: ['name', 'devicePath'] }), ['devicePath'], {
    patchStrategy: 'merge',
    patchMergeKey: 'devicePath',
  }),
  livenessProbe: probeSchema,
  readinessProbe: probeSchema,
  startupProbe: probeSchema,
  lifecycle: struct({ postStart: lifecycleHandlerSchema, preStop: lifecycleHandlerSchema, stopSignal: string() }),
  terminationMessagePath: string(),
  terminationMessagePolicy: string(),
  imagePullPolicy: string(),
  securityContext: securityContextSchema,
  stdin: boolean(),
  stdinOnce: boolean(),
  tty: boolean(),
};

const containerSchema = struct(containerFields, { required: ['name'] });
const ephemeralContainerSchema = struct({ ...containerFields, targetContainerName: string() }, { required: ['name'] });

const containerList = (item: StructSchema) => mapList(item, ['name'], { patchStrategy: 'merge', patchMergeKey: 'name' });

export const podVolumeSchema = struct({ name: string(), ...podVolumeSourceFields }, { required: ['name'] });

const podSecurityContextSchema = struct({
  seLinuxOptions: seLinuxOptionsSchema,
  windowsOptions: windowsSecurityContextOptionsSchema,
  runAsUser: int64(),
  runAsGroup: int64(),
  runAsNonRoot: boolean(),
  supplementalGroups: atomicList(int64()),
  supplementalGroupsPolicy: string(),
  fsGroup: int64(),
  sysctls: atomicList(struct({ name: string(), value: string() }, { required: ['name', 'value'] })),
  fsGroupChangePolicy: string(),
  seccompProfile: seccompProfileSchema,
  appArmorProfile: appArmorProfileSchema,
  seLinuxChangePolicy: string(),
});

const topologySpreadConstraintSchema = struct(
  {
    maxSkew: integer(),
    topologyKey: string(),
    whenUnsatisfiable: string(),
    labelSelector: labelSelectorSchema,
    minDomains: integer(),
    nodeAffinityPolicy: string(),
    nodeTaintsPolicy: string(),
    matchLabelKeys: atomicList(string()),
  },
  { required: ['maxSkew', 'topologyKey', 'whenUnsatisfiable'] },
);

export const podSpecSchema = struct(
  {
    volumes: mapList(podVolumeSchema, ['name'], { patchStrategy: 'merge,retainKeys', patchMergeKey: 'name' }),
    initContainers: containerList(containerSchema),
    containers: containerList(containerSchema),
    ephemeralContainers: containerList(ephemeralContainerSchema),
    restartPolicy: string(),
    terminationGracePeriodSeconds: int64(),
    activeDeadlineSeconds: int64(),
    dnsPolicy: string(),
    nodeSelector: map(string(), 'atomic'),
    serviceAccountName: string(),
    serviceAccount: string(),
    automountServiceAccountToken: boolean(),
    nodeName: string(),
    hostNetwork: boolean(),
    hostPID: boolean(),
    hostIPC: boolean(),
    shareProcessNamespace: boolean(),
    securityContext: podSecurityContextSchema,
    imagePullSecrets: localObjectReferenceMapList(),
    hostname: string(),
    subdomain: string(),
    affinity: affinitySchema,
    schedulerName: string(),
    tolerations: atomicList(tolerationSchema),
    hostAliases: mapList(struct({ ip: string(), hostnames: atomicList(string()) }, { required: ['ip'] }), ['ip'], {
      patchStrategy: 'merge',
      patchMergeKey: 'ip',
    }),
    priorityClassName: string(),
    priority: integer(),
    dnsConfig: struct({
      nameservers: atomicList(string()),
      searches: atomicList(string()),
      options: atomicList(struct({ name: string(), value: string() })),
    }),
    readinessGates: atomicList(struct({ conditionType: string() }, { required: ['conditionType'] })),
    runtimeClassName: string(),
    enableServiceLinks: boolean(),
    preemptionPolicy: string(),
    overhead: resourceList(),
    topologySpreadConstraints: mapList(topologySpreadConstraintSchema, ['topologyKey', 'whenUnsatisfiable'], {
      patchStrategy: 'merge',
      patchMergeKey: 'topologyKey',
    }),
    setHostnameAsFQDN: boolean(),
    os: struct({ name: string() }, { required: ['name'] }),
    hostUsers: boolean(),
    schedulingGates: mapList(struct({ name: string() }, { required: ['name'] }), ['name'], { patchStrategy: 'merge', patchMergeKey: 'name' }),
    resourceClaims: mapList(
      struct({ name: string(), resourceClaimName: string(), resourceClaimTemplateName: string() }, { required: ['name'] }),
      ['name'],
      { patchStrategy: 'merge,retainKeys', patchMergeKey: 'name' },
    ),
    resources: resourceRequirementsSchema,
  },
  { required: ['containers'] },
);

const containerStateSchema = struct({
  waiting: struct({ reason: string(), message: string() }),
  running: struct({ startedAt: dateTime() }),
  terminated: struct(
    {
      exitCode: integer(),
      signal: integer(),
      reason: string(),
      message: string(),
      startedAt: dateTime(),
      finishedAt: dateTime(),
      containerID: string(),
    },
    { required: ['exitCode'] },
  ),
});

const containerStatusSchema = struct(
  {
    name: string(),
    state: containerStateSchema,
    lastState: containerStateSchema,
    ready: boolean(),
    restartCount: integer(),
    image: string(),
    imageID: string(),
    containerID: string(),
    started: boolean(),
    allocatedResources: resourceList(),
    resources: resourceRequirementsSchema,
    volumeMounts: mapList(
      struct({ name: string(), mountPath: string(), readOnly: boolean(), recursiveReadOnly: string() }, { required: ['name', 'mountPath'] }),
      ['mountPath'],
      { patchStrategy: 'merge', patchMergeKey: 'mountPath' },
    ),
    user: struct({ linux: struct({ uid: int64(), gid: int64(), supplementalGroups: atomicList(int64()) }, { required: ['uid', 'gid'] }) }),
    allocatedResourcesStatus: mapList(
      struct(
        {
          name: string(),
          resources: mapList(struct({ resourceID: string(), health: string() }, { required: ['resourceID'] }), ['resourceID']),
        },
        { required: ['name'] },
      ),
      ['name'],
      { patchStrategy: 'merge', patchMergeKey: 'name' },
    ),
    stopSignal: string(),
  },
  { required: ['name', 'ready', 'restartCount', 'image', 'imageID'] },
);

const podIPSchema = struct({ ip: string() }, { required: ['ip'] });

export const podStatusSchema = struct({
  observedGeneration: int64(),
  phase: string(),
  conditions: conditionList(conditionSchema({ observedGeneration: int64() })),
  message: string(),
  reason: string(),
  nominatedNodeName: string(),
  hostIP: string(),
  hostIPs: { ...atomicList(podIPSchema), patchStrategy: 'merge', patchMergeKey: 'ip' },
  podIP: string(),
  podIPs: { ...atomicList(podIPSchema), patchStrategy: 'merge', patchMergeKey: 'ip' },
  startTime: dateTime(),
  initContainerStatuses: atomicList(containerStatusSchema),
  containerStatuses: atomicList(containerStatusSchema),
  qosClass: string(),
  ephemeralContainerStatuses: atomicList(containerStatusSchema),
  resize: string(),
  resourceClaimStatuses: mapList(struct({ name: string(), resourceClaimName: string() }, { required: ['name'] }), ['name'], {
    patchStrategy: 'merge,retainKeys',
    patchMergeKey: 'name',
  }),
});

export const podSchema = kindSchema(objectMetaSchema, { spec: podSpecSchema, status: podStatusSchema });
