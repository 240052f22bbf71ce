import {
  atomicList,
  atomicStruct,
  boolean,
  dateTime,
  field,
  FieldDeclaration,
  int64,
  integer,
  kindSchema,
  map,
  mapList,
  string,
  struct,
  StructSchema,
} from '../../runtime/schema/schema';
import { labelSelectorSchema, objectMetaSchema } from '../../runtime/schema/meta';
import {
  affinitySchema,
  appArmorProfileSchema,
  conditionList,
  conditionSchema,
  intOrString,
  localObjectReferenceMapList,
  resourceList,
  resourceRequirementsSchema,
  seccompProfileSchema,
  seLinuxOptionsSchema,
  tolerationSchema,
  windowsSecurityContextOptionsSchema,
} from './common-schemas';
import { objectFieldSelectorSchema, podVolumeSourceFields, resourceFieldSelectorSchema } from './volume-schemas';

/** core/v1 Pod with kube's field names and merge markers. */

const optionalName = (what: string): Record<string, FieldDeclaration> => ({
  name: field(string(), 'Name of the referent.'),
  optional: field(boolean(), `Specify whether the ${what} must be defined`),
});

const keySelector = (what: string) =>
  atomicStruct(
    { ...optionalName(`${what} or its key`), key: field(string(), `The key of the ${what} to select from. Must be a valid key.`) },
    { required: ['key'], description: `Selects a key from a ${what}.` },
  );

const envVarSourceSchema = struct(
  {
    fieldRef: field(
      objectFieldSelectorSchema,
      "Selects a field of the pod: supports metadata.name, metadata.namespace, metadata.labels['<KEY>'], metadata.annotations['<KEY>'], spec.nodeName, spec.serviceAccountName, status.hostIP, status.podIP, status.podIPs.",
    ),
    resourceFieldRef: field(
      resourceFieldSelectorSchema,
      'Selects a resource of the container: only resources limits and requests (limits.cpu, limits.memory, limits.ephemeral-storage, requests.cpu, requests.memory and requests.ephemeral-storage) are currently supported.',
    ),
    configMapKeyRef: field(keySelector('ConfigMap'), 'Selects a key of a ConfigMap.'),
    secretKeyRef: field(keySelector('Secret'), "Selects a key of a secret in the pod's namespace"),
  },
  { description: 'EnvVarSource represents a source for the value of an EnvVar.' },
);

const envVarSchema = struct(
  {
    name: field(string(), 'Name of the environment variable. Must be a C_IDENTIFIER.'),
    value: field(
      string(),
      'Variable references $(VAR_NAME) are expanded using the previously defined environment variables in the container and any service environment variables. If a variable cannot be resolved, the reference in the input string will be unchanged. Defaults to "".',
    ),
    valueFrom: field(envVarSourceSchema, "Source for the environment variable's value. Cannot be used if value is not empty."),
  },
  { required: ['name'], description: 'EnvVar represents an environment variable present in a Container.' },
);

const envFromSourceSchema = struct(
  {
    prefix: field(string(), 'An optional identifier to prepend to each key in the ConfigMap or Secret. Must be a C_IDENTIFIER.'),
    configMapRef: field(struct(optionalName('ConfigMap'), { description: "Selects a ConfigMap to populate the environment variables with. The contents of the target ConfigMap's Data field will represent the key-value pairs as environment variables." }), 'The ConfigMap to select from'),
    secretRef: field(struct(optionalName('Secret'), { description: "Selects a Secret to populate the environment variables with. The contents of the target Secret's Data field will represent the key-value pairs as environment variables." }), 'The Secret to select from'),
  },
  { description: 'EnvFromSource represents the source of a set of ConfigMaps or Secrets' },
);

const containerPortSchema = struct(
  {
    name: field(string(), 'If specified, this must be an IANA_SVC_NAME and unique within the pod. Each named port in a pod must have a unique name. Name for the port that can be referred to by services.'),
    hostPort: field(integer(), 'Number of port to expose on the host. If specified, this must be a valid port number, 0 < x < 65536. If HostNetwork is specified, this must match ContainerPort.'),
    containerPort: field(integer(), "Number of port to expose on the pod's IP address. This must be a valid port number, 0 < x < 65536."),
    protocol: field(string(), 'Protocol for port. Must be UDP, TCP, or SCTP. Defaults to "TCP".'),
    hostIP: field(string(), 'What host IP to bind the external port to.'),
  },
  { required: ['containerPort'], description: 'ContainerPort represents a network port in a single container.' },
);

const volumeMountSchema = struct(
  {
    name: field(string(), 'This must match the Name of a Volume.'),
    readOnly: field(boolean(), 'Mounted read-only if true, read-write otherwise (false or unspecified). Defaults to false.'),
    recursiveReadOnly: field(
      string(),
      'RecursiveReadOnly specifies whether read-only mounts should be handled recursively: Disabled, IfPossible or Enabled. Defaults to Disabled; only allowed when readOnly is true.',
    ),
    mountPath: field(string(), "Path within the container at which the volume should be mounted. Must not contain ':'."),
    subPath: field(string(), 'Path within the volume from which the container\'s volume should be mounted. Defaults to "" (volume\'s root).'),
    mountPropagation: field(
      string(),
      'mountPropagation determines how mounts are propagated from the host to container and the other way around: None, HostToContainer or Bidirectional. When not set, MountPropagationNone is used.',
    ),
    subPathExpr: field(
      string(),
      "Expanded path within the volume from which the container's volume should be mounted. Behaves similarly to SubPath but environment variable references $(VAR_NAME) are expanded using the container's environment. SubPathExpr and SubPath are mutually exclusive.",
    ),
  },
  { required: ['name', 'mountPath'], description: 'VolumeMount describes a mounting of a Volume within a container.' },
);

const nameValue = (what: string) =>
  struct(
    { name: field(string(), `The ${what} name.`), value: field(string(), `The ${what} value.`) },
    { required: ['name', 'value'], description: `A ${what}: a name and a value.` },
  );

const PORT = 'Number or name of the port to access on the container. Number must be in the range 1 to 65535. Name must be an IANA_SVC_NAME.';

const httpGetSchema = struct(
  {
    path: field(string(), 'Path to access on the HTTP server.'),
    port: field(intOrString(), PORT),
    host: field(string(), 'Host name to connect to, defaults to the pod IP. You probably want to set "Host" in httpHeaders instead.'),
    scheme: field(string(), 'Scheme to use for connecting to the host. Defaults to HTTP.'),
    httpHeaders: field(atomicList(nameValue('HTTP header')), 'Custom headers to set in the request. HTTP allows repeated headers.'),
  },
  { required: ['port'], description: 'HTTPGetAction describes an action based on HTTP Get requests.' },
);

const handlerFields: Record<string, FieldDeclaration> = {
  exec: field(
    struct(
      {
        command: field(
          atomicList(string()),
          "Command is the command line to execute inside the container, the working directory for the command is root ('/') in the container's filesystem. The command is simply exec'd, it is not run inside a shell. Exit status of 0 is treated as live/healthy and non-zero is unhealthy.",
        ),
      },
      { description: 'ExecAction describes a "run in container" action.' },
    ),
    'Exec specifies a command to execute in the container.',
  ),
  httpGet: field(httpGetSchema, 'HTTPGet specifies an HTTP GET request to perform.'),
  tcpSocket: field(
    struct(
      { port: field(intOrString(), PORT), host: field(string(), 'Optional: Host name to connect to, defaults to the pod IP.') },
      { required: ['port'], description: 'TCPSocketAction describes an action based on opening a socket' },
    ),
    'TCPSocket specifies a connection to a TCP port.',
  ),
};

const probeSchema = struct(
  {
    ...handlerFields,
    grpc: field(
      struct(
        {
          port: field(integer(), 'Port number of the gRPC service. Number must be in the range 1 to 65535.'),
          service: field(string(), 'Service is the name of the service to place in the gRPC HealthCheckRequest. If this is not specified, the default behavior is defined by gRPC.'),
        },
        { required: ['port'], description: 'GRPCAction specifies an action involving a GRPC service.' },
      ),
      'GRPC specifies a GRPC HealthCheckRequest.',
    ),
    initialDelaySeconds: field(integer(), 'Number of seconds after the container has started before liveness probes are initiated.'),
    timeoutSeconds: field(integer(), 'Number of seconds after which the probe times out. Defaults to 1 second. Minimum value is 1.'),
    periodSeconds: field(integer(), 'How often (in seconds) to perform the probe. Default to 10 seconds. Minimum value is 1.'),
    successThreshold: field(
      integer(),
      'Minimum consecutive successes for the probe to be considered successful after having failed. Defaults to 1. Must be 1 for liveness and startup. Minimum value is 1.',
    ),
    failureThreshold: field(integer(), 'Minimum consecutive failures for the probe to be considered failed after having succeeded. Defaults to 3. Minimum value is 1.'),
    terminationGracePeriodSeconds: field(
      int64(),
      "Optional duration in seconds the pod needs to terminate gracefully upon probe failure. If this value is nil, the pod's terminationGracePeriodSeconds will be used. Otherwise, this value overrides the value provided by the pod spec.",
    ),
  },
  { description: 'Probe describes a health check to be performed against a container to determine whether it is alive or ready to receive traffic.' },
);

const lifecycleHandlerSchema = struct(
  {
    ...handlerFields,
    sleep: field(
      struct({ seconds: field(int64(), 'Seconds is the number of seconds to sleep.') }, { required: ['seconds'], description: 'SleepAction describes a "sleep" action.' }),
      'Sleep represents a duration that the container should sleep.',
    ),
  },
  { description: 'LifecycleHandler defines a specific action that should be taken in a lifecycle hook. One and only one of the fields, except TCPSocket, must be specified.' },
);

const SECCOMP_PROFILE = 'The seccomp options to use by the containers in this pod. If seccomp options are provided at both the pod & container level, the container options override the pod options.';
const APPARMOR_PROFILE = 'appArmorProfile is the AppArmor options to use by the containers. If set at both the pod and container level, the container options override the pod options.';
const SELINUX_OPTIONS =
  'The SELinux context to be applied to all containers. If unspecified, the container runtime will allocate a random SELinux context for each container. The container-level value takes precedence.';
const WINDOWS_OPTIONS = 'The Windows specific settings applied to all containers. The container-level value takes precedence.';
const RUN_AS_USER = 'The UID to run the entrypoint of the container process. Defaults to user specified in image metadata if unspecified. The container-level value takes precedence.';
const RUN_AS_GROUP = 'The GID to run the entrypoint of the container process. Uses runtime default if unset. The container-level value takes precedence.';
const RUN_AS_NON_ROOT =
  'Indicates that the container must run as a non-root user. If true, the Kubelet will validate the image at runtime to ensure that it does not run as UID 0 (root) and fail to start the container if it does.';

const securityContextSchema = struct(
  {
    capabilities: field(
      struct(
        { add: field(atomicList(string()), 'Added capabilities'), drop: field(atomicList(string()), 'Removed capabilities') },
        { description: 'Adds and removes POSIX capabilities from running containers.' },
      ),
      'The capabilities to add/drop when running containers. Defaults to the default set of capabilities granted by the container runtime.',
    ),
    privileged: field(boolean(), 'Run container in privileged mode. Processes in privileged containers are essentially equivalent to root on the host. Defaults to false.'),
    seLinuxOptions: field(seLinuxOptionsSchema, SELINUX_OPTIONS),
    windowsOptions: field(windowsSecurityContextOptionsSchema, WINDOWS_OPTIONS),
    runAsUser: field(int64(), RUN_AS_USER),
    runAsGroup: field(int64(), RUN_AS_GROUP),
    runAsNonRoot: field(boolean(), RUN_AS_NON_ROOT),
    readOnlyRootFilesystem: field(boolean(), 'Whether this container has a read-only root filesystem. Default is false.'),
    allowPrivilegeEscalation: field(
      boolean(),
      'AllowPrivilegeEscalation controls whether a process can gain more privileges than its parent process (the no_new_privs flag). It is always true when the container runs as privileged or has CAP_SYS_ADMIN.',
    ),
    procMount: field(string(), 'procMount denotes the type of proc mount to use for the containers: Default or Unmasked. The default value is Default which uses the container runtime defaults.'),
    seccompProfile: field(seccompProfileSchema, SECCOMP_PROFILE),
    appArmorProfile: field(appArmorProfileSchema, APPARMOR_PROFILE),
  },
  {
    description:
      'SecurityContext holds security configuration that will be applied to a container. Some fields are present in both SecurityContext and PodSecurityContext; when both are set, the values in SecurityContext take precedence.',
  },
);

const PROBE = (what: string) => `Periodic probe of container ${what}. Cannot be updated.`;

/** Fields of Container, which EphemeralContainer shares (plus targetContainerName). */
const containerFields: Record<string, FieldDeclaration> = {
  name: field(string(), 'Name of the container specified as a DNS_LABEL. Each container in a pod must have a unique name (DNS_LABEL). Cannot be updated.'),
  image: field(string(), 'Container image name. This field is optional to allow higher level config management to default or override container images in workload controllers.'),
  command: field(
    atomicList(string()),
    "Entrypoint array. Not executed within a shell. The container image's ENTRYPOINT is used if this is not provided. Variable references $(VAR_NAME) are expanded using the container's environment. Cannot be updated.",
  ),
  args: field(
    atomicList(string()),
    "Arguments to the entrypoint. The container image's CMD is used if this is not provided. Variable references $(VAR_NAME) are expanded using the container's environment. Cannot be updated.",
  ),
  workingDir: field(string(), "Container's working directory. If not specified, the container runtime's default will be used, which might be configured in the container image. Cannot be updated."),
  ports: field(
    mapList(containerPortSchema, ['containerPort', 'protocol'], { patchStrategy: 'merge', patchMergeKey: 'containerPort' }),
    'List of ports to expose from the container. Not specifying a port here DOES NOT prevent that port from being exposed. Cannot be updated.',
  ),
  envFrom: field(
    atomicList(envFromSourceSchema),
    'List of sources to populate environment variables in the container. When a key exists in multiple sources, the value associated with the last source will take precedence. Values defined by an Env with a duplicate key will take precedence. Cannot be updated.',
  ),
  env: field(mapList(envVarSchema, ['name'], { patchStrategy: 'merge', patchMergeKey: 'name' }), 'List of environment variables to set in the container. Cannot be updated.'),
  resources: field(resourceRequirementsSchema, 'Compute Resources required by this container. Cannot be updated.'),
  resizePolicy: field(
    atomicList(
      struct(
        {
          resourceName: field(string(), 'Name of the resource to which this resource resize policy applies. Supported values: cpu, memory.'),
          restartPolicy: field(string(), 'Restart policy to apply when specified resource is resized. If not specified, it defaults to NotRequired.'),
        },
        { required: ['resourceName', 'restartPolicy'], description: 'ContainerResizePolicy represents resource resize policy for the container.' },
      ),
    ),
    'Resources resize policy for the container.',
  ),
  restartPolicy: field(
    string(),
    'RestartPolicy defines the restart behavior of individual containers in a pod. It may only be set for init containers, where "Always" makes a sidecar that runs for the whole life of the pod.',
  ),
  volumeMounts: field(
    mapList(volumeMountSchema, ['mountPath'], { patchStrategy: 'merge', patchMergeKey: 'mountPath' }),
    "Pod volumes to mount into the container's filesystem. Cannot be updated.",
  ),
  volumeDevices: field(
    mapList(
      struct(
        { name: field(string(), 'name must match the name of a persistentVolumeClaim in the pod'), devicePath: field(string(), 'devicePath is the path inside of the container that the device will be mapped to.') },
        { required: ['name', 'devicePath'], description: 'volumeDevice describes a mapping of a raw block device within a container.' },
      ),
      ['devicePath'],
      { patchStrategy: 'merge', patchMergeKey: 'devicePath' },
    ),
    'volumeDevices is the list of block devices to be used by the container.',
  ),
  livenessProbe: field(probeSchema, `${PROBE('liveness')} Container will be restarted if the probe fails.`),
  readinessProbe: field(probeSchema, `${PROBE('service readiness')} Container will be removed from service endpoints if the probe fails.`),
  startupProbe: field(
    probeSchema,
    'StartupProbe indicates that the Pod has successfully initialized. If specified, no other probes are executed until this completes successfully. If this probe fails, the Pod will be restarted, just as if the livenessProbe failed.',
  ),
  lifecycle: field(
    struct(
      {
        postStart: field(
          lifecycleHandlerSchema,
          'PostStart is called immediately after a container is created. If the handler fails, the container is terminated and restarted according to its restart policy. Other management of the container blocks until the hook completes.',
        ),
        preStop: field(
          lifecycleHandlerSchema,
          "PreStop is called immediately before a container is terminated due to an API request or management event such as liveness/startup probe failure, preemption, resource contention, etc. The Pod's termination grace period countdown begins before the PreStop hook is executed.",
        ),
        stopSignal: field(string(), 'StopSignal defines which signal will be sent to a container when it is being stopped. If not specified, the default is defined by the container runtime in use.'),
      },
      { description: 'Lifecycle describes actions that the management system should take in response to container lifecycle events.' },
    ),
    'Actions that the management system should take in response to container lifecycle events. Cannot be updated.',
  ),
  terminationMessagePath: field(
    string(),
    "Optional: Path at which the file to which the container's termination message will be written is mounted into the container's filesystem. Defaults to /dev/termination-log. Cannot be updated.",
  ),
  terminationMessagePolicy: field(
    string(),
    'Indicate how the termination message should be populated. File will use the contents of terminationMessagePath; FallbackToLogsOnError will use the last chunk of container log output if the termination message file is empty and the container exited with an error. Defaults to File. Cannot be updated.',
  ),
  imagePullPolicy: field(string(), 'Image pull policy. One of Always, Never, IfNotPresent. Defaults to Always if :latest tag is specified, or IfNotPresent otherwise. Cannot be updated.'),
  securityContext: field(securityContextSchema, 'SecurityContext defines the security options the container should be run with. If set, the fields of SecurityContext override the equivalent fields of PodSecurityContext.'),
  stdin: field(boolean(), 'Whether this container should allocate a buffer for stdin in the container runtime. If this is not set, reads from stdin in the container will always result in EOF. Default is false.'),
  stdinOnce: field(
    boolean(),
    'Whether the container runtime should close the stdin channel after it has been opened by a single attach. When stdin is true the stdin stream will remain open across multiple attach sessions. Default is false',
  ),
  tty: field(boolean(), "Whether this container should allocate a TTY for itself, also requires 'stdin' to be true. Default is false."),
};

const containerSchema = struct(containerFields, { required: ['name'], description: 'A single application container that you want to run within a pod.' });
const ephemeralContainerSchema = struct(
  {
    ...containerFields,
    targetContainerName: field(
      string(),
      'If set, the name of the container from PodSpec that this ephemeral container targets. The ephemeral container will be run in the namespaces (IPC, PID, etc) of this container.',
    ),
  },
  {
    required: ['name'],
    description:
      'An EphemeralContainer is a temporary container that you may add to an existing Pod for user-initiated activities such as debugging. Ephemeral containers have no resource or scheduling guarantees, and they will not be restarted when they exit.',
  },
);

const containerList = (item: StructSchema) => mapList(item, ['name'], { patchStrategy: 'merge', patchMergeKey: 'name' });

export const podVolumeSchema = struct(
  {
    name: field(string(), "name of the volume. Must be a DNS_LABEL and unique within the pod."),
    ...podVolumeSourceFields,
  },
  { required: ['name'], description: 'Volume represents a named volume in a pod that may be accessed by any container in the pod.' },
);

const podSecurityContextSchema = struct(
  {
    seLinuxOptions: field(seLinuxOptionsSchema, SELINUX_OPTIONS),
    windowsOptions: field(windowsSecurityContextOptionsSchema, WINDOWS_OPTIONS),
    runAsUser: field(int64(), RUN_AS_USER),
    runAsGroup: field(int64(), RUN_AS_GROUP),
    runAsNonRoot: field(boolean(), RUN_AS_NON_ROOT),
    supplementalGroups: field(
      atomicList(int64()),
      "A list of groups applied to the first process run in each container, in addition to the container's primary GID and fsGroup (if specified).",
    ),
    supplementalGroupsPolicy: field(
      string(),
      'Defines how supplemental groups of the first container processes are calculated: Merge (the default) or Strict.',
    ),
    fsGroup: field(
      int64(),
      'A special supplemental group that applies to all containers in a pod. Some volume types allow the Kubelet to change the ownership of that volume to be owned by the pod.',
    ),
    sysctls: field(atomicList(nameValue('kernel parameter')), 'Sysctls hold a list of namespaced sysctls used for the pod. Pods with unsupported sysctls (by the container runtime) might fail to launch.'),
    fsGroupChangePolicy: field(
      string(),
      'fsGroupChangePolicy defines behavior of changing ownership and permission of the volume before being exposed inside Pod: OnRootMismatch or Always (the default).',
    ),
    seccompProfile: field(seccompProfileSchema, SECCOMP_PROFILE),
    appArmorProfile: field(appArmorProfileSchema, APPARMOR_PROFILE),
    seLinuxChangePolicy: field(string(), 'seLinuxChangePolicy defines how the container\'s SELinux label is applied to all volumes used by the Pod: Recursive or MountOption.'),
  },
  {
    description:
      'PodSecurityContext holds pod-level security attributes and common container settings. Some fields are also present in container.securityContext. Field values of container.securityContext take precedence over field values of PodSecurityContext.',
  },
);

const topologySpreadConstraintSchema = struct(
  {
    maxSkew: field(integer(), 'MaxSkew describes the degree to which pods may be unevenly distributed. It is the maximum permitted difference between the number of matching pods in the target topology and the global minimum.'),
    topologyKey: field(
      string(),
      'TopologyKey is the key of node labels. Nodes that have a label with this key and identical values are considered to be in the same topology. It is a required field.',
    ),
    whenUnsatisfiable: field(
      string(),
      "WhenUnsatisfiable indicates how to deal with a pod if it doesn't satisfy the spread constraint: DoNotSchedule (default) tells the scheduler not to schedule it; ScheduleAnyway tells it to schedule the pod in any location, preferring topologies that reduce the skew.",
    ),
    labelSelector: field(labelSelectorSchema, 'LabelSelector is used to find matching pods. Pods that match this label selector are counted to determine the number of pods in their corresponding topology domain.'),
    minDomains: field(integer(), 'MinDomains indicates a minimum number of eligible domains. When the number of eligible domains is less than minDomains, the global minimum is treated as 0.'),
    nodeAffinityPolicy: field(string(), "NodeAffinityPolicy indicates how we will treat Pod's nodeAffinity/nodeSelector when calculating pod topology spread skew: Honor (default) or Ignore."),
    nodeTaintsPolicy: field(string(), 'NodeTaintsPolicy indicates how we will treat node taints when calculating pod topology spread skew: Honor or Ignore (default).'),
    matchLabelKeys: field(
      atomicList(string()),
      'MatchLabelKeys is a set of pod label keys to select the pods over which spreading will be calculated. The keys are used to look up values from the incoming pod labels, and those key-value labels are ANDed with labelSelector.',
    ),
  },
  { required: ['maxSkew', 'topologyKey', 'whenUnsatisfiable'], description: 'TopologySpreadConstraint specifies how to spread matching pods among the given topology.' },
);

export const podSpecSchema = struct(
  {
    volumes: field(
      mapList(podVolumeSchema, ['name'], { patchStrategy: 'merge,retainKeys', patchMergeKey: 'name' }),
      'List of volumes that can be mounted by containers belonging to the pod.',
    ),
    initContainers: field(
      containerList(containerSchema),
      'List of initialization containers belonging to the pod. Init containers are executed in order prior to containers being started. If any init container fails, the pod is considered to have failed and is handled according to its restartPolicy.',
    ),
    containers: field(
      containerList(containerSchema),
      'List of containers belonging to the pod. Containers cannot currently be added or removed. There must be at least one container in a Pod. Cannot be updated.',
    ),
    ephemeralContainers: field(
      containerList(ephemeralContainerSchema),
      'List of ephemeral containers run in this pod. Ephemeral containers may be run in an existing pod to perform user-initiated actions such as debugging. This list cannot be specified when creating a pod.',
    ),
    restartPolicy: field(string(), 'Restart policy for all containers within the pod. One of Always, OnFailure, Never. Default to Always.'),
    terminationGracePeriodSeconds: field(
      int64(),
      'Optional duration in seconds the pod needs to terminate gracefully. May be decreased in delete request. Value must be non-negative integer. The value zero indicates stop immediately via the kill signal. Defaults to 30 seconds.',
    ),
    activeDeadlineSeconds: field(
      int64(),
      'Optional duration in seconds the pod may be active on the node relative to StartTime before the system will actively try to mark it failed and kill associated containers. Value must be a positive integer.',
    ),
    dnsPolicy: field(string(), "Set DNS policy for the pod. Defaults to \"ClusterFirst\". Valid values are 'ClusterFirstWithHostNet', 'ClusterFirst', 'Default' or 'None'."),
    nodeSelector: field(
      map(string(), 'atomic'),
      "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node.",
    ),
    serviceAccountName: field(string(), 'ServiceAccountName is the name of the ServiceAccount to use to run this pod.'),
    serviceAccount: field(string(), 'DeprecatedServiceAccount is a deprecated alias for ServiceAccountName. Deprecated: Use serviceAccountName instead.'),
    automountServiceAccountToken: field(boolean(), 'AutomountServiceAccountToken indicates whether a service account token should be automatically mounted.'),
    nodeName: field(
      string(),
      'NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once set, the kubelet on this node becomes responsible for the lifecycle of this pod.',
    ),
    hostNetwork: field(boolean(), "Host networking requested for this pod. Use the host's network namespace. If this option is set, the ports that will be used must be specified. Default to false."),
    hostPID: field(boolean(), "Use the host's pid namespace. Optional: Default to false."),
    hostIPC: field(boolean(), "Use the host's ipc namespace. Optional: Default to false."),
    shareProcessNamespace: field(
      boolean(),
      'Share a single process namespace between all of the containers in a pod. When this is set containers will be able to view and signal processes from other containers in the same pod. Optional: Default to false.',
    ),
    securityContext: field(podSecurityContextSchema, 'SecurityContext holds pod-level security attributes and common container settings. Optional: Defaults to empty.'),
    imagePullSecrets: field(
      localObjectReferenceMapList(),
      'ImagePullSecrets is an optional list of references to secrets in the same namespace to use for pulling any of the images used by this PodSpec.',
    ),
    hostname: field(string(), "Specifies the hostname of the Pod. If not specified, the pod's hostname will be set to a system-defined value."),
    subdomain: field(
      string(),
      'If specified, the fully qualified Pod hostname will be "<hostname>.<subdomain>.<pod namespace>.svc.<cluster domain>". If not specified, the pod will not have a domainname at all.',
    ),
    affinity: field(affinitySchema, "If specified, the pod's scheduling constraints"),
    schedulerName: field(string(), 'If specified, the pod will be dispatched by specified scheduler. If not specified, the pod will be dispatched by default scheduler.'),
    tolerations: field(atomicList(tolerationSchema), "If specified, the pod's tolerations."),
    hostAliases: field(
      mapList(
        struct(
          { ip: field(string(), 'IP address of the host file entry.'), hostnames: field(atomicList(string()), 'Hostnames for the above IP address.') },
          { required: ['ip'], description: "HostAlias holds the mapping between IP and hostnames that will be injected as an entry in the pod's hosts file." },
        ),
        ['ip'],
        { patchStrategy: 'merge', patchMergeKey: 'ip' },
      ),
      "HostAliases is an optional list of hosts and IPs that will be injected into the pod's hosts file if specified.",
    ),
    priorityClassName: field(
      string(),
      'If specified, indicates the pod\'s priority. "system-node-critical" and "system-cluster-critical" are two special keywords which indicate the highest priorities. Any other name must be defined by creating a PriorityClass object with that name.',
    ),
    priority: field(
      integer(),
      'The priority value. Various system components use this field to find the priority of the pod. When Priority Admission Controller is enabled, it prevents users from setting this field.',
    ),
    dnsConfig: field(
      struct(
        {
          nameservers: field(atomicList(string()), 'A list of DNS name server IP addresses. This will be appended to the base nameservers generated from DNSPolicy. Duplicated nameservers will be removed.'),
          searches: field(atomicList(string()), 'A list of DNS search domains for host-name lookup. This will be appended to the base search paths generated from DNSPolicy. Duplicated search paths will be removed.'),
          options: field(
            atomicList(
              struct(
                { name: field(string(), 'Name is this DNS resolver option\'s name. Required.'), value: field(string(), "Value is this DNS resolver option's value.") },
                { description: 'PodDNSConfigOption defines DNS resolver options of a pod.' },
              ),
            ),
            'A list of DNS resolver options. This will be merged with the base options generated from DNSPolicy. Duplicated entries will be removed.',
          ),
        },
        { description: 'PodDNSConfig defines the DNS parameters of a pod in addition to those generated from DNSPolicy.' },
      ),
      'Specifies the DNS parameters of a pod. Parameters specified here will be merged to the generated DNS configuration based on DNSPolicy.',
    ),
    readinessGates: field(
      atomicList(
        struct(
          { conditionType: field(string(), "ConditionType refers to a condition in the pod's condition list with matching type.") },
          { required: ['conditionType'], description: 'PodReadinessGate contains the reference to a pod condition' },
        ),
      ),
      'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True".',
    ),
    runtimeClassName: field(
      string(),
      'RuntimeClassName refers to a RuntimeClass object in the node.k8s.io group, which should be used to run this pod. If unset or empty, the "legacy" RuntimeClass will be used.',
    ),
    enableServiceLinks: field(boolean(), "EnableServiceLinks indicates whether information about services should be injected into pod's environment variables, matching the syntax of Docker links. Optional: Defaults to true."),
    preemptionPolicy: field(string(), 'PreemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.'),
    overhead: field(resourceList(), 'Overhead represents the resource overhead associated with running a pod for a given RuntimeClass. It is set at admission time by the RuntimeClass admission controller.'),
    topologySpreadConstraints: field(
      mapList(topologySpreadConstraintSchema, ['topologyKey', 'whenUnsatisfiable'], { patchStrategy: 'merge', patchMergeKey: 'topologyKey' }),
      'TopologySpreadConstraints describes how a group of pods ought to spread across topology domains. Scheduler will schedule pods in a way which abides by the constraints. All topologySpreadConstraints are ANDed.',
    ),
    setHostnameAsFQDN: field(
      boolean(),
      "If true the pod's hostname will be configured as the pod's FQDN, rather than the leaf name (the default). If a pod does not have FQDN, this has no effect. Default to false.",
    ),
    os: field(
      struct(
        { name: field(string(), 'Name is the name of the operating system. The currently supported values are linux and windows.') },
        { required: ['name'], description: 'PodOS defines the OS parameters of a pod.' },
      ),
      'Specifies the OS of the containers in the pod. Some pod and container fields are restricted if this is set.',
    ),
    hostUsers: field(
      boolean(),
      'Use the host\'s user namespace. Optional: Default to true. If set to true or not present, the pod will be run in the host user namespace. When set to false, a new userns is created for the pod.',
    ),
    schedulingGates: field(
      mapList(
        struct({ name: field(string(), 'Name of the scheduling gate. Each scheduling gate must have a unique name field.') }, { required: ['name'], description: 'PodSchedulingGate is associated to a Pod to guard its scheduling.' }),
        ['name'],
        { patchStrategy: 'merge', patchMergeKey: 'name' },
      ),
      'SchedulingGates is an opaque list of values that if specified will block scheduling the pod. If schedulingGates is not empty, the pod will stay in the SchedulingGated state and the scheduler will not attempt to schedule the pod.',
    ),
    resourceClaims: field(
      mapList(
        struct(
          {
            name: field(string(), 'Name uniquely identifies this resource claim inside the pod. This must be a DNS_LABEL.'),
            resourceClaimName: field(string(), 'ResourceClaimName is the name of a ResourceClaim object in the same namespace as this pod.'),
            resourceClaimTemplateName: field(
              string(),
              'ResourceClaimTemplateName is the name of a ResourceClaimTemplate object in the same namespace as this pod. The template will be used to create a new ResourceClaim, which will be bound to this pod.',
            ),
          },
          { required: ['name'], description: 'PodResourceClaim references exactly one ResourceClaim, either directly or by naming a ResourceClaimTemplate which is then turned into a ResourceClaim for the pod.' },
        ),
        ['name'],
        { patchStrategy: 'merge,retainKeys', patchMergeKey: 'name' },
      ),
      'ResourceClaims defines which ResourceClaims must be allocated and reserved before the Pod is allowed to start. The resources will be made available to those containers which consume them by name.',
    ),
    resources: field(
      resourceRequirementsSchema,
      'Resources is the total amount of CPU and Memory resources required by all containers in the pod. It supports specifying Requests and Limits for "cpu" and "memory" resource names only.',
    ),
  },
  { required: ['containers'], description: 'PodSpec is a description of a pod.' },
);

const containerStateSchema = struct(
  {
    waiting: field(
      struct(
        { reason: field(string(), '(brief) reason the container is not yet running.'), message: field(string(), 'Message regarding why the container is not yet running.') },
        { description: 'ContainerStateWaiting is a waiting state of a container.' },
      ),
      'Details about a waiting container',
    ),
    running: field(
      struct({ startedAt: field(dateTime(), 'Time at which the container was last (re-)started') }, { description: 'ContainerStateRunning is a running state of a container.' }),
      'Details about a running container',
    ),
    terminated: field(
      struct(
        {
          exitCode: field(integer(), 'Exit status from the last termination of the container'),
          signal: field(integer(), 'Signal from the last termination of the container'),
          reason: field(string(), '(brief) reason from the last termination of the container'),
          message: field(string(), 'Message regarding the last termination of the container'),
          startedAt: field(dateTime(), 'Time at which previous execution of the container started'),
          finishedAt: field(dateTime(), 'Time at which the container last terminated'),
          containerID: field(string(), "Container's ID in the format '<type>://<container_id>'"),
        },
        { required: ['exitCode'], description: 'ContainerStateTerminated is a terminated state of a container.' },
      ),
      'Details about a terminated container',
    ),
  },
  { description: 'ContainerState holds a possible state of container. Only one of its members may be specified. If none of them is specified, the default one is ContainerStateWaiting.' },
);

const containerStatusSchema = struct(
  {
    name: field(string(), 'Name is a DNS_LABEL representing the unique name of the container. Each container in a pod must have a unique name across all container types. Cannot be updated.'),
    state: field(containerStateSchema, "State holds details about the container's current condition."),
    lastState: field(
      containerStateSchema,
      "LastTerminationState holds the last termination state of the container to help debug container crashes and restarts. This field is not populated if the container is still running and RestartCount is 0.",
    ),
    ready: field(boolean(), 'Ready specifies whether the container is currently passing its readiness check. The value will change as readiness probes keep executing.'),
    restartCount: field(integer(), 'RestartCount holds the number of times the container has been restarted. Kubelet makes an effort to always increment the value, but there are cases when the state may be lost due to node restarts.'),
    image: field(string(), 'Image is the name of container image that the container is running. The container image may not match the image used in the PodSpec, as it may have been resolved by the runtime.'),
    imageID: field(string(), "ImageID is the image ID of the container's image. The image ID may not match the image ID of the image used in the PodSpec, as it may have been resolved by the runtime."),
    containerID: field(string(), "ContainerID is the ID of the container in the format '<type>://<container_id>'. Where type is a container runtime identifier, returned from Version call of CRI API."),
    started: field(
      boolean(),
      'Started indicates whether the container has finished its postStart lifecycle hook and passed its startup probe. Initialized as false, becomes true after startupProbe is considered successful.',
    ),
    allocatedResources: field(resourceList(), 'AllocatedResources represents the compute resources allocated for this container by the node. Kubelet sets this value to Container.Resources.Requests upon successful pod admission.'),
    resources: field(resourceRequirementsSchema, 'Resources represents the compute resource requests and limits that have been successfully enacted on the running container after it has been started or has been successfully resized.'),
    volumeMounts: field(
      mapList(
        struct(
          {
            name: field(string(), 'Name corresponds to the name of the original VolumeMount.'),
            mountPath: field(string(), 'MountPath corresponds to the original VolumeMount.'),
            readOnly: field(boolean(), 'ReadOnly corresponds to the original VolumeMount.'),
            recursiveReadOnly: field(string(), 'RecursiveReadOnly must be set to Disabled, Enabled, or unspecified (for non-readonly mounts).'),
          },
          { required: ['name', 'mountPath'], description: 'VolumeMountStatus shows status of volume mounts.' },
        ),
        ['mountPath'],
        { patchStrategy: 'merge', patchMergeKey: 'mountPath' },
      ),
      'Status of volume mounts.',
    ),
    user: field(
      struct(
        {
          linux: field(
            struct(
              {
                uid: field(int64(), 'UID is the primary uid initially attached to the first process in the container'),
                gid: field(int64(), 'GID is the primary gid initially attached to the first process in the container'),
                supplementalGroups: field(atomicList(int64()), 'SupplementalGroups are the supplemental groups initially attached to the first process in the container'),
              },
              { required: ['uid', 'gid'], description: 'LinuxContainerUser represents user identity information in Linux containers' },
            ),
            'Linux holds user identity information initially attached to the first process of the containers in Linux.',
          ),
        },
        { description: 'ContainerUser represents user identity information' },
      ),
      'User represents user identity information initially attached to the first process of the container',
    ),
    allocatedResourcesStatus: field(
      mapList(
        struct(
          {
            name: field(string(), 'Name of the resource. Must be unique within the pod and, in case of non-DRA resource, match one of the resources from the pod spec.'),
            resources: field(
              mapList(
                struct(
                  {
                    resourceID: field(string(), 'ResourceID is the unique identifier of the resource.'),
                    health: field(string(), 'Health of the resource: Healthy, Unhealthy or Unknown.'),
                  },
                  { required: ['resourceID'], description: 'ResourceHealth represents the health of a resource.' },
                ),
                ['resourceID'],
              ),
              'List of unique resources health. Each element in the list contains an unique resource ID and its health.',
            ),
          },
          { required: ['name'], description: 'ResourceStatus represents the status of a single resource allocated to a Pod.' },
        ),
        ['name'],
        { patchStrategy: 'merge', patchMergeKey: 'name' },
      ),
      'AllocatedResourcesStatus represents the status of various resources allocated for this Pod.',
    ),
    stopSignal: field(string(), 'StopSignal reports the effective stop signal for this container'),
  },
  { required: ['name', 'ready', 'restartCount', 'image', 'imageID'], description: 'ContainerStatus contains details for the current status of this container.' },
);

const POD_IPS = (what: string) =>
  `${what} holds the IP addresses allocated to the pod. If this field is specified, the 0th entry must match the ${what === 'podIPs' ? 'podIP' : 'hostIP'} field. This list is empty if no IPs have been allocated yet.`;
const ipSchema = (what: string) =>
  struct({ ip: field(string(), `IP is the IP address assigned to the ${what}`) }, { required: ['ip'], description: `An IP address allocated to the ${what}.` });

const CONTAINER_STATUSES = (containers: string) => `Statuses of ${containers} in this pod. Each container in the pod should have at most one status in this list, and all statuses should be for containers in the pod.`;

export const podStatusSchema = struct(
  {
    observedGeneration: field(int64(), 'If set, this represents the .metadata.generation that the pod status was set based upon.'),
    phase: field(
      string(),
      'The phase of a Pod is a simple, high-level summary of where the Pod is in its lifecycle: Pending, Running, Succeeded, Failed or Unknown.',
    ),
    conditions: field(
      conditionList(conditionSchema({ observedGeneration: field(int64(), 'If set, this represents the .metadata.generation that the pod condition was set based upon.') })),
      'Current service state of pod.',
    ),
    message: field(string(), 'A human readable message indicating details about why the pod is in this condition.'),
    reason: field(string(), "A brief CamelCase message indicating details about why the pod is in this state. e.g. 'Evicted'"),
    nominatedNodeName: field(
      string(),
      'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.',
    ),
    hostIP: field(string(), 'hostIP holds the IP address of the host to which the pod is assigned. Empty if the pod has not started yet.'),
    hostIPs: field({ ...atomicList(ipSchema('host')), patchStrategy: 'merge', patchMergeKey: 'ip' }, POD_IPS('hostIPs')),
    podIP: field(string(), 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.'),
    podIPs: field({ ...atomicList(ipSchema('pod')), patchStrategy: 'merge', patchMergeKey: 'ip' }, POD_IPS('podIPs')),
    startTime: field(dateTime(), 'RFC 3339 date and time at which the object was acknowledged by the Kubelet. This is before the Kubelet pulled the container image(s) for the pod.'),
    initContainerStatuses: field(atomicList(containerStatusSchema), CONTAINER_STATUSES('init containers')),
    containerStatuses: field(atomicList(containerStatusSchema), CONTAINER_STATUSES('containers')),
    qosClass: field(string(), 'The Quality of Service (QOS) classification assigned to the pod based on resource requirements: Guaranteed, Burstable or BestEffort.'),
    ephemeralContainerStatuses: field(atomicList(containerStatusSchema), CONTAINER_STATUSES('ephemeral containers')),
    resize: field(string(), 'Status of resources resize desired for pod\'s containers. It is empty if no resources resize is pending. Deprecated: see the PodResizePending and PodResizeInProgress conditions.'),
    resourceClaimStatuses: field(
      mapList(
        struct(
          {
            name: field(string(), 'Name uniquely identifies this resource claim inside the pod. This must match the name of an entry in pod.spec.resourceClaims.'),
            resourceClaimName: field(
              string(),
              'ResourceClaimName is the name of the ResourceClaim that was generated for the Pod in the namespace of the Pod. If this is unset, then generating a ResourceClaim was not necessary.',
            ),
          },
          { required: ['name'], description: 'PodResourceClaimStatus is stored in the PodStatus for each PodResourceClaim which references a ResourceClaimTemplate.' },
        ),
        ['name'],
        { patchStrategy: 'merge,retainKeys', patchMergeKey: 'name' },
      ),
      'Status of resource claims.',
    ),
  },
  { description: 'PodStatus represents information about the status of a pod. Status may trail the actual state of a system, especially if the node that hosts the pod cannot contact the control plane.' },
);

export const podSchema = kindSchema(
  objectMetaSchema,
  {
    spec: field(podSpecSchema, 'Specification of the desired behavior of the pod.'),
    status: field(podStatusSchema, 'Most recently observed status of the pod. This data may not be up to date. Populated by the system. Read-only.'),
  },
  {
    description:
      'Pod is a collection of containers that can run on a host. This resource is created by clients and scheduled onto hosts. Here it is stored so that the Node authorizer can follow what pods bound to a node use.',
  },
);
