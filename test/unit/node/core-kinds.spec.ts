import { statusOf } from '../../support/status-of';
import { FieldError, fieldErrorMessage } from '../../../src/apimachinery/field-errors';
import { ResourceType, StrategyContext } from '../../../src/runtime/schema/resource-type';
import { KubeObject } from '../../../src/apimachinery/types';
import { validateObjectMeta } from '../../../src/apimachinery/validation/object-meta';
import { SYSTEM_USER } from '../../../src/apimachinery/user-info';
import { base64ErrorOffset } from '../../../src/core/kinds/base64';
import { configMapType } from '../../../src/core/kinds/config-map';
import { CORE_KINDS } from '../../../src/core/kinds';
import { nodeType } from '../../../src/core/kinds/node';
import { persistentVolumeClaimType } from '../../../src/core/kinds/persistent-volume-claim';
import { persistentVolumeType } from '../../../src/core/kinds/persistent-volume';
import { imageTag, podType } from '../../../src/core/kinds/pod';
import { parseQuantity, QuantityError } from '../../../src/core/kinds/quantity';
import { secretType } from '../../../src/core/kinds/secret';
import { serviceAccountType } from '../../../src/core/kinds/service-account';

const ctx: StrategyContext = { user: SYSTEM_USER, namespace: 'ns', dryRun: false };

/** What the generic storage does on create: prepare, then metadata and kind validation. */
function create(type: ResourceType, body: Record<string, unknown>): { obj: KubeObject; errs: string[] } {
  const obj = structuredClone(body) as KubeObject;
  obj.metadata = obj.metadata ?? { name: 'x' };
  if (type.namespaced) obj.metadata.namespace = 'ns';
  type.strategy.prepareForCreate?.(obj, ctx);
  const errs: FieldError[] = [
    ...validateObjectMeta(obj.metadata, { namespaced: type.namespaced, nameValidator: type.nameValidator }),
    ...type.strategy.validate(obj, ctx),
  ];
  return { obj, errs: errs.map(fieldErrorMessage) };
}

function update(type: ResourceType, next: Record<string, unknown>, old: KubeObject): { obj: KubeObject; errs: string[] } {
  const obj = structuredClone(next) as KubeObject;
  obj.metadata = obj.metadata ?? { name: 'x' };
  if (type.namespaced) obj.metadata.namespace = 'ns';
  type.strategy.prepareForUpdate?.(obj, old, ctx);
  return { obj, errs: type.strategy.validateUpdate(obj, old, ctx).map(fieldErrorMessage) };
}

describe('core kinds as discovery shows them', () => {
  it.each([
    ['Node', 'nodes', ['no'], false],
    ['Pod', 'pods', ['po'], true],
    ['PersistentVolume', 'persistentvolumes', ['pv'], false],
    ['PersistentVolumeClaim', 'persistentvolumeclaims', ['pvc'], true],
    ['Secret', 'secrets', [], true],
    ['ConfigMap', 'configmaps', ['cm'], true],
    ['ServiceAccount', 'serviceaccounts', ['sa'], true],
  ] as const)('%s', (kind, plural, shortNames, namespaced) => {
    const type = CORE_KINDS.find((t) => t.kind === kind)!;
    expect(type).toMatchObject({ group: '', version: 'v1', listKind: `${kind}List`, plural, singular: kind.toLowerCase(), shortNames, namespaced });
    expect([...type.verbs].sort()).toEqual(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    // Every core kind here names its objects as DNS subdomains.
    expect(type.nameValidator('a.b-c', false)).toEqual([]);
    expect(type.nameValidator('Upper', false)).not.toEqual([]);
  });
});

describe('Pod', () => {
  const minimal = { metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } };

  it('gets kube defaults and starts Pending whatever status was sent', () => {
    const { obj, errs } = create(podType, { ...minimal, status: { phase: 'Running' } });
    expect(errs).toEqual([]);
    expect(obj.spec).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      terminationGracePeriodSeconds: 30,
      securityContext: {},
      enableServiceLinks: true,
      containers: [{ name: 'c', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {} }],
    });
    expect(obj.status).toEqual({ phase: 'Pending' });
  });

  it('defaults the pull policy from the image tag, requests from limits, and volume modes', () => {
    const { obj } = create(podType, {
      metadata: { name: 'p' },
      spec: {
        containers: [
          { name: 'a', image: 'nginx', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } } },
          { name: 'b', image: 'registry:5000/app:latest', ports: [{ containerPort: 80 }] },
        ],
        volumes: [{ name: 's', secret: { secretName: 'x' } }],
      },
    });
    const [a, b] = (obj.spec as any).containers;
    expect(a.imagePullPolicy).toBe('Always');
    expect(a.resources.requests).toEqual({ cpu: '500m', memory: '1Gi' });
    expect(b.imagePullPolicy).toBe('Always');
    expect(b.ports[0].protocol).toBe('TCP');
    expect((obj.spec as any).volumes[0].secret.defaultMode).toBe(420);
    expect(imageTag('repo/app@sha256:abc')).toBe('');
    expect(imageTag('localhost:5000/app')).toBe('latest');
  });

  it('reports kube field errors', () => {
    const { errs } = create(podType, {
      metadata: { name: 'p' },
      spec: {
        nodeName: 'Bad_Node',
        restartPolicy: 'Sometimes',
        containers: [{ name: 'c', image: '' }, { name: 'c', image: 'i' }],
        volumes: [
          { name: 'v', secret: {} },
          { name: 'v', configMap: { name: 'x' }, emptyDir: {} },
          { name: 'none' },
        ],
      },
    });
    expect(errs).toEqual([
      'spec.volumes[0].secret.secretName: Required value',
      'spec.volumes[1].name: Duplicate value: "v"',
      'spec.volumes[1].configMap: Forbidden: may not specify more than 1 volume type',
      'spec.volumes[2]: Required value: must specify a volume type',
      'spec.containers[0].image: Required value',
      'spec.containers[1].name: Duplicate value: "c"',
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"',
      expect.stringMatching(/^spec\.nodeName: Invalid value: "Bad_Node": a lowercase RFC 1123 subdomain/),
    ]);
    expect(create(podType, { metadata: { name: 'p' }, spec: {} }).errs).toEqual(['spec.containers: Required value']);
  });

  it('refuses ephemeral containers on create but not on update', () => {
    const spec = { containers: [{ name: 'c', image: 'i' }], ephemeralContainers: [{ name: 'd', image: 'i' }] };
    expect(create(podType, { metadata: { name: 'p' }, spec }).errs).toEqual(['spec.ephemeralContainers: Forbidden: cannot be set on create']);
    const { obj: old } = create(podType, minimal);
    expect(update(podType, { metadata: { name: 'web' }, spec }, old).errs).toEqual([]);
  });

  it('answers a bad quantity with kube\'s 400 decode error', () => {
    const err = statusOf(() =>
      create(podType, { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: 'lots' } } }] } }),
    );
    expect(err.code).toBe(400);
    expect(err.message).toBe(
      `Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    );
  });

  it('keeps the stored status on update', () => {
    const { obj: old } = create(podType, minimal);
    const { obj } = update(podType, { ...minimal, status: { phase: 'Failed' } }, old);
    expect(obj.status).toEqual({ phase: 'Pending' });
  });

  it('exposes kube\'s field labels', () => {
    const { obj } = create(podType, { metadata: { name: 'p' }, spec: { nodeName: 'n1', serviceAccountName: 'sa', containers: [{ name: 'c', image: 'i' }] } });
    const fields = Object.fromEntries(podType.selectableFields!.map((f) => [f.name, f.value(obj)]));
    expect(fields).toEqual({
      'spec.nodeName': 'n1',
      'spec.restartPolicy': 'Always',
      'spec.schedulerName': 'default-scheduler',
      'spec.serviceAccountName': 'sa',
      'spec.hostNetwork': 'false',
      'status.phase': 'Pending',
      'status.podIP': '',
      'status.nominatedNodeName': '',
    });
  });
});

describe('Secret', () => {
  it('folds stringData into data, defaults the type, and never stores stringData', () => {
    const { obj, errs } = create(secretType, { metadata: { name: 's' }, data: { a: 'YQ==', b: 'Yg==' }, stringData: { b: 'bee', c: 'sea' } });
    expect(errs).toEqual([]);
    expect(obj.data).toEqual({ a: 'YQ==', b: Buffer.from('bee').toString('base64'), c: Buffer.from('sea').toString('base64') });
    expect(obj.stringData).toBeUndefined();
    expect(obj.type).toBe('Opaque');
    expect(secretType.selectableFields!.map((f) => [f.name, f.value(obj)])).toEqual([['type', 'Opaque']]);
  });

  it('answers data that is not base64 with kube\'s 400', () => {
    const err = statusOf(() => create(secretType, { metadata: { name: 's' }, data: { a: 'not base64!' } }));
    expect(err.code).toBe(400);
    expect(err.message).toBe('Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3');
  });

  it('validates keys and the requirements of built-in types', () => {
    expect(create(secretType, { metadata: { name: 's' }, stringData: { 'bad key': 'x', '..dots': 'y' } }).errs).toEqual([
      `data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
      `data[..dots]: Invalid value: "..dots": must not start with '..'`,
    ]);
    expect(create(secretType, { metadata: { name: 's' }, type: 'platform.io/tls', stringData: { 'tls.crt': 'c' } }).errs).toEqual([
      'data[tls.key]: Required value',
    ]);
    expect(create(secretType, { metadata: { name: 's' }, type: 'platform.io/basic-auth' }).errs).toEqual([
      'data[username]: Required value',
      'data[password]: Required value',
    ]);
    expect(create(secretType, { metadata: { name: 's' }, type: 'platform.io/service-account-token' }).errs).toEqual([
      'metadata.annotations[platform.io/service-account.name]: Required value',
    ]);
  });

  it('freezes data and type when immutable', () => {
    const { obj: old } = create(secretType, { metadata: { name: 's' }, stringData: { a: 'x' }, immutable: true });
    expect(update(secretType, { metadata: { name: 's' }, stringData: { a: 'y' }, immutable: true }, old).errs).toEqual([
      'data: Forbidden: field is immutable when `immutable` is set',
    ]);
    expect(update(secretType, { metadata: { name: 's' }, data: old.data, immutable: false }, old).errs).toEqual([
      'immutable: Forbidden: field is immutable when `immutable` is set',
    ]);
    expect(update(secretType, { metadata: { name: 's' }, data: old.data, type: 'other', immutable: true }, old).errs).toEqual([
      'type: Invalid value: "other": field is immutable',
    ]);
    expect(update(secretType, { metadata: { name: 's', labels: { a: 'b' } }, data: old.data, immutable: true }, old).errs).toEqual([]);
  });
});

describe('ConfigMap', () => {
  it('validates keys, duplicates across data and binaryData, and base64', () => {
    expect(create(configMapType, { metadata: { name: 'c' }, data: { a: '1', 'a b': '2' }, binaryData: { a: 'AA==' } }).errs).toEqual([
      'data[a]: Invalid value: "a": duplicate of key present in binaryData',
      `data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    ]);
    expect(statusOf(() => create(configMapType, { metadata: { name: 'c' }, binaryData: { a: 'AAA' } })).message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 0',
    );
  });

  it('freezes data and binaryData when immutable', () => {
    const { obj: old } = create(configMapType, { metadata: { name: 'c' }, data: { a: '1' }, immutable: true });
    expect(update(configMapType, { metadata: { name: 'c' }, data: { a: '2' }, binaryData: { b: 'AA==' }, immutable: true }, old).errs).toEqual([
      'data: Forbidden: field is immutable when `immutable` is set',
      'binaryData: Forbidden: field is immutable when `immutable` is set',
    ]);
  });

  it('limits the total size to 1 MiB', () => {
    expect(create(configMapType, { metadata: { name: 'c' }, data: { a: 'x'.repeat(1024 * 1024 + 1) } }).errs).toEqual([
      'Too long: must have at most 1048576 bytes',
    ]);
  });
});

describe('PersistentVolume and PersistentVolumeClaim', () => {
  it('defaults and validates a volume', () => {
    const { obj, errs } = create(persistentVolumeType, {
      metadata: { name: 'v' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/d' } },
    });
    expect(errs).toEqual([]);
    expect(obj.spec).toMatchObject({ persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem' });
    expect((obj.status as any).phase).toBe('Pending');
    expect(create(persistentVolumeType, { metadata: { name: 'v' }, spec: { capacity: { storage: '0' }, accessModes: ['Sometimes'] } }).errs).toEqual([
      'spec.accessModes: Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
      'spec.capacity[storage]: Invalid value: "0": must be greater than zero',
      'spec: Required value: must specify a volume type',
    ]);
  });

  it('keeps the volume source fixed after creation', () => {
    const spec = { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], csi: { driver: 'd', volumeHandle: 'h' } };
    const { obj: old } = create(persistentVolumeType, { metadata: { name: 'v' }, spec });
    expect(update(persistentVolumeType, { metadata: { name: 'v' }, spec: { ...spec, claimRef: { namespace: 'ns', name: 'c' } } }, old).errs).toEqual([]);
    const changed = { ...spec, csi: { driver: 'd', volumeHandle: 'h', nodePublishSecretRef: { name: 's', namespace: 'ns' } } };
    expect(update(persistentVolumeType, { metadata: { name: 'v' }, spec: changed }, old).errs).toEqual([
      'spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation',
    ]);
  });

  it('validates a claim and lets volumeName be set once', () => {
    const spec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
    const { obj: old, errs } = create(persistentVolumeClaimType, { metadata: { name: 'c' }, spec });
    expect(errs).toEqual([]);
    expect(old.status).toEqual({ phase: 'Pending' });
    expect(create(persistentVolumeClaimType, { metadata: { name: 'c' }, spec: {} }).errs).toEqual([
      'spec.accessModes: Required value: at least 1 access mode is required',
      'spec.resources[storage]: Required value',
    ]);
    const bound = update(persistentVolumeClaimType, { metadata: { name: 'c' }, spec: { ...spec, volumeName: 'v' } }, old);
    expect(bound.errs).toEqual([]);
    expect(update(persistentVolumeClaimType, { metadata: { name: 'c' }, spec: { ...spec, volumeName: 'w' } }, bound.obj).errs).toEqual([
      'spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
    ]);
    expect(update(persistentVolumeClaimType, { metadata: { name: 'c' }, spec: { ...spec, volumeName: 'v', resources: { requests: { storage: '2Gi' } } } }, bound.obj).errs).toEqual([]);
  });
});

describe('Node and ServiceAccount', () => {
  it('validates taints and keeps status on update', () => {
    const { obj: old, errs } = create(nodeType, { metadata: { name: 'n1' }, status: { nodeInfo: { kubeletVersion: 'v1' } } });
    expect(errs).toEqual([]);
    expect(old.status).toEqual({ nodeInfo: { kubeletVersion: 'v1' } });
    const taints = [
      { key: 'a', effect: 'NoSchedule' },
      { key: 'a', effect: 'NoSchedule' },
      { key: 'b', effect: 'Maybe' },
    ];
    const result = update(nodeType, { metadata: { name: 'n1' }, spec: { taints }, status: {} }, old);
    expect(result.obj.status).toEqual({ nodeInfo: { kubeletVersion: 'v1' } });
    expect(result.errs).toEqual([
      'spec.taints[1]: Duplicate value: {"key":"a","effect":"NoSchedule"}: taints must be unique by key and effect pair',
      'spec.taints[2].effect: Unsupported value: "Maybe": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    ]);
    expect(nodeType.selectableFields!.map((f) => [f.name, f.value(old)])).toEqual([['spec.unschedulable', 'false']]);
  });

  it('accepts a service account with secrets and pull secrets', () => {
    expect(create(serviceAccountType, { metadata: { name: 'builder' }, secrets: [{ name: 's' }], imagePullSecrets: [{ name: 'p' }] }).errs).toEqual([]);
  });
});

describe('quantity and base64 syntax', () => {
  it.each([
    ['1', 1],
    ['0', 0],
    ['-1.5Gi', -1],
    ['100m', 1],
    ['1e3', 1],
    ['.5', 1],
    [2, 1],
  ])('parses %p', (value, sign) => {
    expect(parseQuantity(value).sign).toBe(sign);
  });

  it.each([['abc'], [''], ['1Zi'], ['1 Gi'], ['1.2.3x']])('rejects %p', (value) => {
    expect(() => parseQuantity(value)).toThrow(QuantityError);
  });

  it('reports the byte offset Go reports', () => {
    expect(base64ErrorOffset('YWJj')).toBe(-1);
    expect(base64ErrorOffset('YWI=')).toBe(-1);
    expect(base64ErrorOffset('YQ==')).toBe(-1);
    expect(base64ErrorOffset('YW\nJj')).toBe(-1);
    expect(base64ErrorOffset('')).toBe(-1);
    expect(base64ErrorOffset('YWJ')).toBe(0);
    expect(base64ErrorOffset('YWJjZ')).toBe(4);
    expect(base64ErrorOffset('YW*j')).toBe(2);
    expect(base64ErrorOffset('Y===')).toBe(1);
    expect(base64ErrorOffset('YQ=')).toBe(3);
    expect(base64ErrorOffset('YQ==YQ==')).toBe(4);
  });
});
