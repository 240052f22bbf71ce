import * as protobuf from 'protobufjs';
import { decodeObjectBody } from '../../../src/runtime/serializer/codecs';
import { protobufCodec } from '../../../src/runtime/serializer/protobuf/protobuf-codec';
import { Schema } from '../../../src/runtime/schema/schema';
import { CORE_KINDS } from '../../../src/core/kinds';
import { configMapType } from '../../../src/core/kinds/config-map';
import { secretType } from '../../../src/core/kinds/secret';
import { allFieldBytes, fieldBytes, fieldNumbers } from './wire-fields';

const CORE = 'platform.io.api.core.v1';
const codec = protobufCodec();

const b64 = (bytes: string | number[]) => Buffer.from(bytes as string).toString('base64');

/** A JSON object through prefix, envelope and message and back. */
function roundTrip(kind: string, object: Record<string, unknown>): unknown {
  return codec.decode(`${CORE}.${kind}`, codec.encode(`${CORE}.${kind}`, 'v1', kind, object));
}

// ---- every schema field has a protobuf field of the same shape -------------------------

const EMBEDDED = '(platform.io.codec.embedded)';

/** A message's fields by JSON name, with the fields of embedded Go structs lifted into it. */
function jsonFields(type: protobuf.Type): Map<string, protobuf.Field> {
  const out = new Map<string, protobuf.Field>();
  for (const field of type.fieldsArray) {
    field.resolve();
    if (field.getOption(EMBEDDED) === true) {
      for (const [name, inner] of jsonFields(field.resolvedType as protobuf.Type)) out.set(name, inner);
    } else {
      out.set(field.name, field);
    }
  }
  return out;
}

const messageName = (field: protobuf.Field) => (field.resolvedType instanceof protobuf.Type ? field.resolvedType.name : undefined);

/** What a schema value needs of a protobuf value: a message to recurse into, or a mismatch. */
function valueMismatch(schema: Schema, field: protobuf.Field, path: string, out: string[]): void {
  const wire = messageName(field) ?? field.type;
  const expect = (wanted: string) => {
    if (wire !== wanted) out.push(`${path}: schema wants ${wanted}, proto has ${wire}`);
  };
  switch (schema.kind) {
    case 'scalar':
      if (schema.format === 'byte') return expect('bytes');
      if (schema.format === 'date-time') return expect('Time');
      if (schema.format === 'int-or-string') return expect('IntOrString');
      if (schema.type === 'string') return expect('string');
      if (schema.type === 'boolean') return expect('bool');
      if (schema.type === 'integer') return expect(schema.format === 'int64' ? 'int64' : 'int32');
      return expect('double');
    case 'any':
      // Quantity, or a JSON document carried whole (managedFields' fieldsV1).
      if (wire !== 'FieldsV1') expect('Quantity');
      return;
    case 'struct':
      if (!(field.resolvedType instanceof protobuf.Type)) return void out.push(`${path}: schema wants a message, proto has ${wire}`);
      return structMismatches(schema.fields, field.resolvedType, path, out);
    default:
      out.push(`${path}: nested ${schema.kind} has no protobuf form`);
  }
}

function structMismatches(fields: Record<string, Schema>, type: protobuf.Type, path: string, out: string[]): void {
  const wire = jsonFields(type);
  for (const [name, schema] of Object.entries(fields)) {
    const at = `${path}.${name}`;
    const field = wire.get(name);
    if (!field) {
      out.push(`${at}: no field in ${type.name}`);
      continue;
    }
    if (schema.kind === 'list') {
      if (!field.repeated) out.push(`${at}: schema has a list, proto field is not repeated`);
      else valueMismatch(schema.items, field, `${at}[]`, out);
    } else if (schema.kind === 'map') {
      if (!field.map) out.push(`${at}: schema has a map, proto field is not a map`);
      else valueMismatch(schema.values, field, `${at}{}`, out);
    } else if (field.repeated || field.map) {
      out.push(`${at}: schema has a single value, proto field is repeated`);
    } else {
      valueMismatch(schema, field, at, out);
    }
  }
}

describe('core kinds protobuf messages', () => {
  it.each(CORE_KINDS.map((t) => [t.kind, t] as const))('%s names its message and list message', (kind, type) => {
    expect(type.protobuf).toEqual({ message: `${CORE}.${kind}`, listMessage: `${CORE}.${kind}List` });
    expect(codec.has(`${CORE}.${kind}`) && codec.has(`${CORE}.${kind}List`)).toBe(true);
  });

  it.each(CORE_KINDS.map((t) => [t.kind, t] as const))('%s: every field its schema declares is encodable', (kind, type) => {
    const { apiVersion: _apiVersion, kind: _kind, ...fields } = type.schema.fields;
    const mismatches: string[] = [];
    structMismatches(fields, codec.type(`${CORE}.${kind}`), kind, mismatches);
    expect(mismatches).toEqual([]);
  });
});

// ---- field numbers, checked by hand against k8s.io/api/core/v1/generated.proto ----------

describe('core messages keep Kubernetes field numbers', () => {
  it('Pod: metadata 1, spec 2, status 3; PodSpec.nodeName 10, containers 2, volumes 1, initContainers 20', () => {
    const raw = codec.encodeRaw(`${CORE}.Pod`, {
      metadata: { name: 'p' },
      spec: { volumes: [{ name: 'v', emptyDir: {} }], containers: [{ name: 'c' }], nodeName: 'n1', initContainers: [{ name: 'i' }] },
      status: { phase: 'Running' },
    });
    expect(fieldNumbers(raw)).toEqual([1, 2, 3]);
    expect(fieldNumbers(fieldBytes(raw, 2))).toEqual([1, 2, 10, 20]);
    expect(Buffer.from(fieldBytes(raw, 2, 10)).toString()).toBe('n1');
  });

  it('Container: env 7, envFrom 19, volumeMounts 9, securityContext 15, restartPolicy 24', () => {
    const raw = codec.encodeRaw(`${CORE}.Container`, {
      name: 'c',
      envFrom: [{ secretRef: { name: 's' } }],
      env: [{ name: 'A', value: 'b' }],
      volumeMounts: [{ name: 'v', mountPath: '/v' }],
      securityContext: { runAsUser: 0 },
      restartPolicy: 'Always',
    });
    expect(fieldNumbers(raw)).toEqual([1, 7, 9, 15, 19, 24]);
    // EnvFromSource.secretRef 3 holds SecretEnvSource, whose embedded LocalObjectReference is 1.
    expect(Buffer.from(fieldBytes(raw, 19, 3, 1, 1)).toString()).toBe('s');
  });

  it('writes embedded Go structs as their own field: a key selector name, a volume source, a probe handler', () => {
    const selector = codec.encodeRaw(`${CORE}.SecretKeySelector`, { name: 'db', key: 'password', optional: true });
    expect(fieldNumbers(selector)).toEqual([1, 2, 3]);
    expect(Buffer.from(fieldBytes(selector, 1, 1)).toString()).toBe('db');

    // Volume.volumeSource 2 -> VolumeSource.secret 6 -> SecretVolumeSource.secretName 1
    const volume = codec.encodeRaw(`${CORE}.Volume`, { name: 'creds', secret: { secretName: 'db' } });
    expect(fieldNumbers(volume)).toEqual([1, 2]);
    expect(Buffer.from(fieldBytes(volume, 2, 6, 1)).toString()).toBe('db');

    // Probe.handler 1 -> ProbeHandler.grpc 4; Probe.periodSeconds 4
    const probe = codec.encodeRaw(`${CORE}.Probe`, { grpc: { port: 9000 }, periodSeconds: 3 });
    expect(fieldNumbers(probe)).toEqual([1, 4]);
    expect(fieldNumbers(fieldBytes(probe, 1))).toEqual([4]);
  });

  it('PersistentVolume: the embedded source is spec field 2, CSI is 22 with secret refs 6 to 10', () => {
    const ref = { name: 's', namespace: 'kube-system' };
    const raw = codec.encodeRaw(`${CORE}.PersistentVolume`, {
      spec: {
        capacity: { storage: '1Gi' },
        csi: {
          driver: 'd',
          volumeHandle: 'h',
          controllerPublishSecretRef: ref,
          nodeStageSecretRef: ref,
          nodePublishSecretRef: ref,
          controllerExpandSecretRef: ref,
          nodeExpandSecretRef: ref,
        },
        storageClassName: 'fast',
      },
    });
    const spec = fieldBytes(raw, 2);
    expect(fieldNumbers(spec)).toEqual([1, 2, 6]);
    const csi = fieldBytes(spec, 2, 22);
    expect(fieldNumbers(csi)).toEqual([1, 2, 6, 7, 8, 9, 10]);
    // SecretReference: name 1, namespace 2
    expect(Buffer.from(fieldBytes(csi, 9, 2)).toString()).toBe('kube-system');
  });

  it('Secret: data 2 (bytes), type 3, stringData 4, immutable 5; ConfigMap: data 2, binaryData 3, immutable 4', () => {
    const secret = codec.encodeRaw(`${CORE}.Secret`, { metadata: {}, data: { k: b64('v') }, stringData: { s: 't' }, type: 'Opaque', immutable: true });
    expect(fieldNumbers(secret)).toEqual([1, 2, 3, 4, 5]);
    // A map entry is {key 1, value 2}: the value is the raw bytes, not their base64.
    const entry = fieldBytes(secret, 2);
    expect(Buffer.from(fieldBytes(entry, 1)).toString()).toBe('k');
    expect(Buffer.from(fieldBytes(entry, 2)).toString()).toBe('v');
    expect(Buffer.from(fieldBytes(secret, 3)).toString()).toBe('Opaque');

    const configMap = codec.encodeRaw(`${CORE}.ConfigMap`, { data: { a: 'b' }, binaryData: { bin: b64([0xde, 0xad]) }, immutable: false });
    expect(fieldNumbers(configMap)).toEqual([2, 3, 4]);
    expect([...fieldBytes(configMap, 3, 2)]).toEqual([0xde, 0xad]);
  });

  it('Node: spec taints 5, podCIDRs 7; status addresses 5, nodeInfo 7; Taint key 1, effect 3, timeAdded 4', () => {
    const raw = codec.encodeRaw(`${CORE}.Node`, {
      spec: { podCIDRs: ['10.0.0.0/24'], taints: [{ key: 'k', effect: 'NoSchedule', timeAdded: '2024-01-01T00:00:00Z' }] },
      status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }], nodeInfo: { kubeletVersion: 'v1.33.0' } },
    });
    expect(fieldNumbers(fieldBytes(raw, 2))).toEqual([5, 7]);
    expect(fieldNumbers(fieldBytes(raw, 2, 5))).toEqual([1, 3, 4]);
    expect(fieldNumbers(fieldBytes(raw, 3))).toEqual([5, 7]);
    expect(Buffer.from(fieldBytes(raw, 3, 7, 7)).toString()).toBe('v1.33.0');
  });

  it('ServiceAccount: secrets 2, imagePullSecrets 3, automountServiceAccountToken 4; PVC spec storageClassName 5, volumeMode 6', () => {
    expect(
      fieldNumbers(codec.encodeRaw(`${CORE}.ServiceAccount`, { secrets: [{ name: 's' }], imagePullSecrets: [{ name: 'r' }], automountServiceAccountToken: false })),
    ).toEqual([2, 3, 4]);
    const pvc = codec.encodeRaw(`${CORE}.PersistentVolumeClaim`, { spec: { accessModes: ['ReadWriteOnce'], storageClassName: '', volumeMode: 'Block' } });
    expect(fieldNumbers(fieldBytes(pvc, 2))).toEqual([1, 5, 6]);
  });
});

// ---- realistic objects through protobuf and back -----------------------------------------

const meta = (name: string, namespace?: string) => ({
  name,
  ...(namespace ? { namespace } : {}),
  uid: `${name}-uid`,
  resourceVersion: '12',
  creationTimestamp: '2024-05-06T07:08:09Z',
  labels: { app: name },
});

const pod = {
  metadata: meta('web', 'default'),
  spec: {
    volumes: [
      { name: 'creds', secret: { secretName: 'db-creds', items: [{ key: 'password', path: 'pw', mode: 256 }], defaultMode: 420, optional: false } },
      { name: 'config', configMap: { name: 'web-config', items: [{ key: 'level', path: 'level' }], defaultMode: 420 } },
      { name: 'data', persistentVolumeClaim: { claimName: 'data', readOnly: true } },
      {
        name: 'token',
        projected: {
          sources: [
            { serviceAccountToken: { audience: 'api', expirationSeconds: 3600, path: 'token' } },
            { secret: { name: 'extra', items: [{ key: 'a', path: 'a' }], optional: true } },
            { configMap: { name: 'ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            { downwardAPI: { items: [{ path: 'labels', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.labels' } }] } },
          ],
          defaultMode: 420,
        },
      },
      { name: 'scratch', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
      {
        name: 'cache',
        ephemeral: {
          volumeClaimTemplate: { metadata: { labels: { tier: 'cache' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
        },
      },
      { name: 'inline', csi: { driver: 'inline.csi.example.com', readOnly: true, volumeAttributes: { size: 'small' }, nodePublishSecretRef: { name: 'csi-creds' } } },
      { name: 'legacy', iscsi: { targetPortal: '10.0.0.2:3260', iqn: 'iqn.2024-01.com.example:t', lun: 0, secretRef: { name: 'chap' }, chapAuthSession: true } },
    ],
    initContainers: [{ name: 'init', image: 'busybox', command: ['sh', '-c', 'true'], restartPolicy: 'Always' }],
    containers: [
      {
        name: 'app',
        image: 'nginx:1.27',
        args: ['--port', '8080'],
        workingDir: '/srv',
        ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
        envFrom: [{ prefix: 'CFG_', configMapRef: { name: 'web-config', optional: true } }, { secretRef: { name: 'db-creds' } }],
        env: [
          { name: 'MODE', value: 'prod' },
          { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db-creds', key: 'password', optional: false } } },
          { name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'web-config', key: 'level' } } },
          { name: 'NODE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } },
          { name: 'MEMORY', valueFrom: { resourceFieldRef: { containerName: 'app', resource: 'limits.memory', divisor: '1Mi' } } },
        ],
        resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m' } },
        volumeMounts: [
          { name: 'creds', mountPath: '/etc/creds', readOnly: true },
          { name: 'data', mountPath: '/data', subPath: 'web', mountPropagation: 'None' },
        ],
        livenessProbe: { httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP', httpHeaders: [{ name: 'X-Probe', value: '1' }] }, initialDelaySeconds: 5, periodSeconds: 10 },
        readinessProbe: { tcpSocket: { port: 8080 }, timeoutSeconds: 1, terminationGracePeriodSeconds: 0 },
        startupProbe: { exec: { command: ['cat', '/tmp/ready'] }, failureThreshold: 30 },
        lifecycle: { postStart: { exec: { command: ['true'] } }, preStop: { sleep: { seconds: 5 } } },
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        imagePullPolicy: 'IfNotPresent',
        securityContext: {
          runAsUser: 1000,
          runAsNonRoot: true,
          privileged: false,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
          seccompProfile: { type: 'RuntimeDefault' },
        },
      },
    ],
    ephemeralContainers: [{ name: 'debug', image: 'busybox', targetContainerName: 'app', stdin: true, tty: true }],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 0,
    activeDeadlineSeconds: 600,
    dnsPolicy: 'ClusterFirst',
    nodeSelector: { 'platform.io/os': 'linux' },
    serviceAccountName: 'web',
    serviceAccount: 'web',
    automountServiceAccountToken: false,
    nodeName: 'node-1',
    hostNetwork: true,
    securityContext: { fsGroup: 2000, supplementalGroups: [3000, 3001], sysctls: [{ name: 'net.core.somaxconn', value: '1024' }] },
    imagePullSecrets: [{ name: 'registry' }],
    hostname: 'web-0',
    subdomain: 'web',
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }] },
      },
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'hostname' } }],
      },
    },
    schedulerName: 'default-scheduler',
    tolerations: [{ key: 'not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    hostAliases: [{ ip: '10.0.0.1', hostnames: ['db'] }],
    priority: 0,
    dnsConfig: { nameservers: ['10.0.0.53'], options: [{ name: 'ndots', value: '2' }] },
    enableServiceLinks: true,
    preemptionPolicy: 'PreemptLowerPriority',
    overhead: { cpu: '10m' },
    topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } }],
    os: { name: 'linux' },
    schedulingGates: [{ name: 'quota' }],
  },
  status: {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-05-06T07:09:00Z' }],
    hostIP: '10.0.0.10',
    hostIPs: [{ ip: '10.0.0.10' }],
    podIP: '10.1.0.5',
    podIPs: [{ ip: '10.1.0.5' }],
    startTime: '2024-05-06T07:08:10Z',
    initContainerStatuses: [
      {
        name: 'init',
        ready: false,
        restartCount: 0,
        image: 'busybox',
        imageID: '',
        state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: '2024-05-06T07:08:11Z', finishedAt: '2024-05-06T07:08:12Z' } },
      },
    ],
    containerStatuses: [{ name: 'app', ready: true, restartCount: 2, image: 'nginx:1.27', imageID: 'sha256:abc', started: true, state: { running: { startedAt: '2024-05-06T07:08:13Z' } } }],
    qosClass: 'Burstable',
  },
};

const persistentVolume = {
  metadata: meta('pv-1'),
  spec: {
    capacity: { storage: '10Gi' },
    csi: {
      driver: 'ebs.csi.example.com',
      volumeHandle: 'vol-0123',
      fsType: 'ext4',
      volumeAttributes: { zone: 'a' },
      controllerPublishSecretRef: { name: 'publish', namespace: 'storage' },
      nodeStageSecretRef: { name: 'stage', namespace: 'storage' },
      nodePublishSecretRef: { name: 'node-publish', namespace: 'storage' },
      controllerExpandSecretRef: { name: 'expand', namespace: 'storage' },
      nodeExpandSecretRef: { name: 'node-expand', namespace: 'storage' },
    },
    accessModes: ['ReadWriteOnce'],
    claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data', uid: 'data-uid', apiVersion: 'v1', resourceVersion: '7' },
    persistentVolumeReclaimPolicy: 'Retain',
    storageClassName: 'fast',
    mountOptions: ['noatime'],
    volumeMode: 'Filesystem',
    nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } },
  },
  status: { phase: 'Bound', lastPhaseTransitionTime: '2024-05-06T07:08:09Z' },
};

const persistentVolumeClaim = {
  metadata: meta('data', 'default'),
  spec: {
    accessModes: ['ReadWriteOnce'],
    selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['db'] }] },
    resources: { requests: { storage: '5Gi' }, limits: { storage: '10Gi' } },
    volumeName: 'pv-1',
    // "" (no class) differs from unset (the default class): it must survive decoding.
    storageClassName: '',
    volumeMode: 'Filesystem',
    dataSource: { apiGroup: 'snapshot.storage.platform.io', kind: 'VolumeSnapshot', name: 'snap' },
    dataSourceRef: { apiGroup: 'snapshot.storage.platform.io', kind: 'VolumeSnapshot', name: 'snap', namespace: 'backups' },
  },
  status: {
    phase: 'Bound',
    accessModes: ['ReadWriteOnce'],
    capacity: { storage: '10Gi' },
    conditions: [{ type: 'Resizing', status: 'True', lastProbeTime: '2024-05-06T07:08:09Z' }],
    allocatedResources: { storage: '10Gi' },
    allocatedResourceStatuses: { storage: 'ControllerResizeInProgress' },
    modifyVolumeStatus: { status: 'Pending' },
  },
};

const node = {
  metadata: meta('node-1'),
  spec: {
    podCIDR: '10.244.1.0/24',
    podCIDRs: ['10.244.1.0/24', 'fd00::/64'],
    providerID: 'example://node-1',
    unschedulable: true,
    taints: [
      { key: 'node.platform.io/unschedulable', effect: 'NoSchedule', timeAdded: '2024-05-06T07:08:09Z' },
      { key: 'dedicated', value: 'gpu', effect: 'NoExecute' },
    ],
  },
  status: {
    capacity: { cpu: '4', memory: '16Gi', pods: '110' },
    allocatable: { cpu: '3800m', memory: '15Gi', pods: '110' },
    conditions: [
      { type: 'Ready', status: 'True', lastHeartbeatTime: '2024-05-06T07:10:00Z', lastTransitionTime: '2024-05-06T07:08:09Z', reason: 'KubeletReady', message: 'kubelet is ready' },
    ],
    addresses: [
      { type: 'InternalIP', address: '10.0.0.10' },
      { type: 'Hostname', address: 'node-1' },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: 'm',
      systemUUID: 's',
      bootID: 'b',
      kernelVersion: '6.1.0',
      osImage: 'Debian GNU/Linux 12',
      containerRuntimeVersion: 'containerd://1.7.0',
      kubeletVersion: 'v1.33.0',
      kubeProxyVersion: '',
      operatingSystem: 'linux',
      architecture: 'amd64',
      swap: { capacity: 0 },
    },
    images: [{ names: ['nginx:1.27'], sizeBytes: 72000000 }],
    volumesInUse: ['kubernetes.io/csi/ebs^vol-0123'],
    volumesAttached: [{ name: 'kubernetes.io/csi/ebs^vol-0123', devicePath: '' }],
    runtimeHandlers: [{ name: '', features: { recursiveReadOnlyMounts: true, userNamespaces: false } }],
    features: { supplementalGroupsPolicy: true },
  },
};

describe('core objects round-trip through protobuf', () => {
  it('a Pod with volumes, env from secrets and config maps, probes and status', () => {
    expect(roundTrip('Pod', pod)).toEqual({ apiVersion: 'v1', kind: 'Pod', ...pod });
  });

  it('a PersistentVolume with CSI secret references and node affinity', () => {
    expect(roundTrip('PersistentVolume', persistentVolume)).toEqual({ apiVersion: 'v1', kind: 'PersistentVolume', ...persistentVolume });
  });

  it('a PersistentVolumeClaim with data sources, keeping an empty storageClassName', () => {
    expect(roundTrip('PersistentVolumeClaim', persistentVolumeClaim)).toEqual({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', ...persistentVolumeClaim });
  });

  it('a Node with taints, addresses, conditions and system info', () => {
    expect(roundTrip('Node', node)).toEqual({ apiVersion: 'v1', kind: 'Node', ...node });
  });

  it('a Secret whose data holds arbitrary bytes (base64 in JSON, raw on the wire)', () => {
    const secret = {
      metadata: meta('db-creds', 'default'),
      immutable: false,
      data: { password: b64('s3cr3t'), binary: b64([0x00, 0xff, 0x10, 0x80]), empty: '' },
      type: 'Opaque',
    };
    expect(roundTrip('Secret', secret)).toEqual({ apiVersion: 'v1', kind: 'Secret', ...secret });
  });

  it('a ConfigMap with data and binaryData', () => {
    const configMap = { metadata: meta('web-config', 'default'), data: { level: 'debug', empty: '' }, binaryData: { logo: b64([0x89, 0x50, 0x4e, 0x47, 0x00]) } };
    expect(roundTrip('ConfigMap', configMap)).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', ...configMap });
  });

  it('a ServiceAccount with secrets and image pull secrets', () => {
    const account = {
      metadata: meta('web', 'default'),
      secrets: [{ name: 'web-token' }, { kind: 'Secret', namespace: 'default', name: 'other' }],
      imagePullSecrets: [{ name: 'registry' }],
      automountServiceAccountToken: false,
    };
    expect(roundTrip('ServiceAccount', account)).toEqual({ apiVersion: 'v1', kind: 'ServiceAccount', ...account });
  });

  it('a list of pods', () => {
    const list = { metadata: { resourceVersion: '99' }, items: [pod, { metadata: meta('other', 'default'), spec: { containers: [{ name: 'c', image: 'i' }] } }] };
    expect(roundTrip('PodList', list)).toEqual({ apiVersion: 'v1', kind: 'PodList', ...list });
  });
});

describe('decoding what a Kubernetes client writes', () => {
  it('turns raw secret bytes into base64 and keeps non-UTF-8 bytes exactly', () => {
    const type = codec.type(`${CORE}.Secret`);
    const bytes = type.encode({ metadata: { name: 's' }, data: { key: Buffer.from([0xc3, 0x28, 0x00, 0xff]) }, type: 'Opaque' }).finish();
    expect(codec.decodeEnvelope(`${CORE}.Secret`, { apiVersion: 'v1', kind: 'Secret', raw: bytes })).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { key: 'wygA/w==' },
      type: 'Opaque',
    });
  });

  it('drops the zero values of plain fields and keeps those of pointer and never-omitted fields', () => {
    // gogo-protobuf writes every non-pointer field, zero or not.
    const type = codec.type(`${CORE}.Pod`);
    const bytes = type
      .encode({
        spec: {
          containers: [{ name: 'c', image: '', workingDir: '', stdin: false, tty: false, securityContext: { privileged: false, procMount: '' } }],
          nodeName: '',
          hostNetwork: false,
          terminationGracePeriodSeconds: 0,
          volumes: [{ name: 'v', volumeSource: { emptyDir: { medium: '' } } }],
        },
        status: { phase: '', containerStatuses: [{ name: 'c', ready: false, restartCount: 0, image: '', imageID: '', containerID: '' }] },
      })
      .finish();
    expect(codec.decodeEnvelope(`${CORE}.Pod`, { apiVersion: 'v1', kind: 'Pod', raw: bytes })).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      spec: {
        volumes: [{ name: 'v', emptyDir: {} }],
        containers: [{ name: 'c', securityContext: { privileged: false, procMount: '' } }],
        terminationGracePeriodSeconds: 0,
      },
      status: { containerStatuses: [{ name: 'c', ready: false, restartCount: 0, image: '', imageID: '' }] },
    });
  });

  it('accepts a protobuf create body for the kinds kubectl create makes', () => {
    const secret = { metadata: { name: 's', namespace: 'default' }, data: { k: b64('v') }, type: 'Opaque' };
    const body = codec.encode(`${CORE}.Secret`, 'v1', 'Secret', secret);
    expect(decodeObjectBody('application/vnd.platform.protobuf', body, secretType)).toEqual({ apiVersion: 'v1', kind: 'Secret', ...secret });
    const configMap = { metadata: { name: 'c', namespace: 'default' }, data: { a: 'b' } };
    expect(decodeObjectBody('application/vnd.platform.protobuf', codec.encode(`${CORE}.ConfigMap`, 'v1', 'ConfigMap', configMap), configMapType)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      ...configMap,
    });
  });

  it('writes a map entry per key', () => {
    const raw = codec.encodeRaw(`${CORE}.ConfigMap`, { data: { a: '1', b: '2', c: '3' } });
    expect(allFieldBytes(raw, 2)).toHaveLength(3);
  });
});
