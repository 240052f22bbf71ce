import { FieldError, fieldErrors, FieldPath } from '../../apimachinery/field-errors';
import { ResourceStrategy } from '../../runtime/schema/resource-type';
import { isPlainObject, KubeObject } from '../../apimachinery/types';
import { nameIsDNSSubdomain } from '../../apimachinery/validation/names';
import { list, record, str } from '../../apimachinery/validation/shape';
import { coreType } from './core-type';
import {
  assertQuantities,
  assertQuantity,
  isConfigMapKey,
  requireString,
  validateDNSLabelField,
  validateOneOf,
  validateSubdomainReference,
} from './core-validation';
import { podSchema } from './pod-schema';
import { podTable } from './pod-table';

/** The core Pod kind (v1): kube's defaults, the validation rules that matter, and its field labels. */

export interface Pod extends KubeObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

type Obj = Record<string, unknown>;

/** Marks a pod a kubelet created for a static pod (kube's `kubernetes.io/config.mirror`, in this project's domain). */
export const MIRROR_POD_ANNOTATION = 'platform.io/config.mirror';

export function isMirrorPod(pod: KubeObject): boolean {
  const annotations = pod.metadata.annotations;
  return isPlainObject(annotations) && MIRROR_POD_ANNOTATION in annotations;
}

/** Supported values, sorted as kube's sets list them in errors. */
const RESTART_POLICIES = ['Always', 'Never', 'OnFailure'];
const DNS_POLICIES = ['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'];
const DEFAULT_SCHEDULER = 'default-scheduler';
const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
/** 0644: the file mode kube gives secret, configMap, projected and downwardAPI volumes. */
const DEFAULT_VOLUME_MODE = 420;
const VOLUMES_WITH_DEFAULT_MODE = ['secret', 'configMap', 'projected', 'downwardAPI'];

/**
 * kube checks a volume's sources in this order; the first is counted, every later one is
 * "may not specify more than 1 volume type".
 */
const VOLUME_SOURCES = [
  'emptyDir',
  'hostPath',
  'gitRepo',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'flocker',
  'persistentVolumeClaim',
  'rbd',
  'cinder',
  'cephfs',
  'quobyte',
  'downwardAPI',
  'fc',
  'flexVolume',
  'configMap',
  'azureFile',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'storageos',
  'projected',
  'scaleIO',
  'csi',
  'ephemeral',
  'image',
];

const PROJECTION_SOURCES = ['secret', 'downwardAPI', 'configMap', 'serviceAccountToken', 'clusterTrustBundle'];

const objects = (value: unknown): Obj[] => list<unknown>(value).filter(isPlainObject);

function containersOf(spec: Obj, field: 'initContainers' | 'containers' | 'ephemeralContainers'): Obj[] {
  return objects(spec[field]);
}

/** kube's image reference parsing for the pull policy default: no tag and no digest means latest. */
export function imageTag(image: string): string {
  const withoutDigest = image.split('@')[0];
  const hasDigest = withoutDigest !== image;
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  if (colon > lastSlash) return withoutDigest.slice(colon + 1);
  return hasDigest ? '' : 'latest';
}

function setDefault(obj: Obj, field: string, value: unknown): void {
  if (obj[field] === undefined || obj[field] === null || obj[field] === '') obj[field] = value;
}

/** SetDefaults_Container: termination message, pull policy, empty resources, TCP ports, env fieldRef apiVersion. */
function defaultContainer(c: Obj): void {
  setDefault(c, 'terminationMessagePath', '/dev/termination-log');
  setDefault(c, 'terminationMessagePolicy', 'File');
  if (!c.imagePullPolicy && typeof c.image === 'string') c.imagePullPolicy = imageTag(c.image) === 'latest' ? 'Always' : 'IfNotPresent';
  setDefault(c, 'resources', {});
  for (const port of objects(c.ports)) setDefault(port, 'protocol', 'TCP');
  for (const env of objects(c.env)) {
    const valueFrom = record(env.valueFrom);
    if (isPlainObject(valueFrom.fieldRef)) setDefault(valueFrom.fieldRef, 'apiVersion', 'v1');
  }
}

/** Requests default to limits for each resource that has a limit but no request (SetDefaults_Pod). */
function defaultRequestsToLimits(c: Obj): void {
  const resources = record(c.resources);
  if (!isPlainObject(resources.limits)) return;
  if (!isPlainObject(resources.requests)) resources.requests = {};
  const requests = resources.requests as Obj;
  for (const [name, value] of Object.entries(resources.limits)) if (!(name in requests)) requests[name] = value;
}

/** The defaults kube's v1 defaulting gives a pod (SetDefaults_Pod, _PodSpec, _Container, volumes). */
export function setPodDefaults(pod: Pod): void {
  if (!isPlainObject(pod.spec)) return;
  const spec = pod.spec;
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'terminationGracePeriodSeconds', DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS);
  setDefault(spec, 'schedulerName', DEFAULT_SCHEDULER);
  setDefault(spec, 'enableServiceLinks', true);
  for (const c of [...containersOf(spec, 'initContainers'), ...containersOf(spec, 'containers')]) {
    defaultContainer(c);
    defaultRequestsToLimits(c);
  }
  for (const c of containersOf(spec, 'ephemeralContainers')) defaultContainer(c);
  for (const volume of objects(spec.volumes)) {
    for (const source of VOLUMES_WITH_DEFAULT_MODE) {
      if (isPlainObject(volume[source])) setDefault(volume[source] as Obj, 'defaultMode', DEFAULT_VOLUME_MODE);
    }
  }
}

/** Quantities are decoded strictly: a bad one is a 400 before any validation runs. */
function assertPodQuantities(spec: Obj): void {
  const all = [...containersOf(spec, 'initContainers'), ...containersOf(spec, 'containers'), ...containersOf(spec, 'ephemeralContainers')];
  const lists: unknown[] = [spec.overhead, record(spec.resources).limits, record(spec.resources).requests];
  for (const c of all) {
    lists.push(record(c.resources).limits, record(c.resources).requests);
    for (const env of objects(c.env)) assertQuantity('Pod', record(record(env.valueFrom).resourceFieldRef).divisor);
  }
  assertQuantities('Pod', lists);
  for (const volume of objects(spec.volumes)) {
    assertQuantity('Pod', record(volume.emptyDir).sizeLimit);
    const downwardFiles = [
      ...objects(record(volume.downwardAPI).items),
      ...objects(record(volume.projected).sources).flatMap((source) => objects(record(source.downwardAPI).items)),
    ];
    for (const file of downwardFiles) assertQuantity('Pod', record(file.resourceFieldRef).divisor);
  }
}

function validateKeySelector(ref: unknown, path: FieldPath): FieldError[] {
  if (!isPlainObject(ref)) return [];
  const errs = requireString(ref.name, path.child('name'));
  const key = str(ref.key);
  if (!key) errs.push(fieldErrors.required(path.child('key'), ''));
  else errs.push(...isConfigMapKey(key).map((msg) => fieldErrors.invalid(path.child('key'), key, msg)));
  return errs;
}

function validateEnv(c: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  objects(c.env).forEach((env, i) => {
    const envPath = path.child('env').index(i);
    errs.push(...requireString(env.name, envPath.child('name')));
    const from = record(env.valueFrom);
    errs.push(...validateKeySelector(from.secretKeyRef, envPath.child('valueFrom').child('secretKeyRef')));
    errs.push(...validateKeySelector(from.configMapKeyRef, envPath.child('valueFrom').child('configMapKeyRef')));
  });
  objects(c.envFrom).forEach((envFrom, i) => {
    const p = path.child('envFrom').index(i);
    if (isPlainObject(envFrom.configMapRef)) errs.push(...requireString(envFrom.configMapRef.name, p.child('configMapRef').child('name')));
    if (isPlainObject(envFrom.secretRef)) errs.push(...requireString(envFrom.secretRef.name, p.child('secretRef').child('name')));
  });
  return errs;
}

/** Names, images and references of one container list; names must be unique across all lists. */
function validateContainers(containers: Obj[], path: FieldPath, seen: Set<string>, requireImage: boolean): FieldError[] {
  const errs: FieldError[] = [];
  containers.forEach((c, i) => {
    const p = path.index(i);
    const name = str(c.name);
    const nameErrs = validateDNSLabelField(c.name, p.child('name'));
    errs.push(...nameErrs);
    if (!nameErrs.length && seen.has(name)) errs.push(fieldErrors.duplicate(p.child('name'), name));
    seen.add(name);
    if (requireImage && !str(c.image)) errs.push(fieldErrors.required(p.child('image'), ''));
    errs.push(...validateEnv(c, p));
  });
  return errs;
}

function validateProjection(projected: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  objects(projected.sources).forEach((source, i) => {
    const p = path.child('sources').index(i);
    const present = PROJECTION_SOURCES.filter((s) => isPlainObject(source[s]));
    if (present.length > 1) errs.push(fieldErrors.forbidden(p, 'may not specify more than 1 volume type per source'));
    for (const kind of ['secret', 'configMap']) {
      if (isPlainObject(source[kind])) errs.push(...requireString((source[kind] as Obj).name, p.child(kind).child('name')));
    }
  });
  return errs;
}

/** One volume: exactly one source, and the reference each graph-relevant source must carry. */
function validateVolumeSource(volume: Obj, path: FieldPath): FieldError[] {
  const present = VOLUME_SOURCES.filter((s) => isPlainObject(volume[s]));
  if (!present.length) return [fieldErrors.required(path, 'must specify a volume type')];
  const errs = present.slice(1).map((s) => fieldErrors.forbidden(path.child(s), 'may not specify more than 1 volume type'));
  const source = present[0];
  const value = volume[source] as Obj;
  const p = path.child(source);
  if (source === 'secret') errs.push(...requireString(value.secretName, p.child('secretName')));
  if (source === 'configMap') errs.push(...requireString(value.name, p.child('name')));
  if (source === 'persistentVolumeClaim') errs.push(...requireString(value.claimName, p.child('claimName')));
  if (source === 'projected') errs.push(...validateProjection(value, p));
  if (source === 'csi') errs.push(...requireString(value.driver, p.child('driver')));
  return errs;
}

function validateVolumes(spec: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  objects(spec.volumes).forEach((volume, i) => {
    const p = path.index(i);
    const name = str(volume.name);
    const nameErrs = validateDNSLabelField(volume.name, p.child('name'));
    errs.push(...nameErrs);
    if (!nameErrs.length && seen.has(name)) errs.push(fieldErrors.duplicate(p.child('name'), name));
    seen.add(name);
    errs.push(...validateVolumeSource(volume, p));
  });
  return errs;
}

/** The parts of kube's ValidatePodSpec that matter here. */
export function validatePodSpec(spec: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...validateVolumes(spec, path.child('volumes')));
  const containers = containersOf(spec, 'containers');
  const names = new Set<string>();
  if (!containers.length) errs.push(fieldErrors.required(path.child('containers'), ''));
  errs.push(...validateContainers(containersOf(spec, 'initContainers'), path.child('initContainers'), names, true));
  errs.push(...validateContainers(containers, path.child('containers'), names, true));
  errs.push(...validateContainers(containersOf(spec, 'ephemeralContainers'), path.child('ephemeralContainers'), names, true));
  errs.push(...validateOneOf(spec.restartPolicy, RESTART_POLICIES, path.child('restartPolicy')));
  errs.push(...validateOneOf(spec.dnsPolicy, DNS_POLICIES, path.child('dnsPolicy')));
  errs.push(...validateSubdomainReference(spec.nodeName, path.child('nodeName')));
  errs.push(...validateSubdomainReference(spec.serviceAccountName, path.child('serviceAccountName')));
  objects(spec.imagePullSecrets).forEach((ref, i) => errs.push(...requireString(ref.name, path.child('imagePullSecrets').index(i).child('name'))));
  return errs;
}

export function validatePod(pod: Pod): FieldError[] {
  return validatePodSpec(record(pod.spec), FieldPath.root('spec'));
}

/** On create kube also refuses ephemeral containers: they are added to running pods only. */
export function validatePodCreate(pod: Pod): FieldError[] {
  const errs = validatePod(pod);
  if (objects(record(pod.spec).ephemeralContainers).length) {
    errs.push(fieldErrors.forbidden(FieldPath.root('spec').child('ephemeralContainers'), 'cannot be set on create'));
  }
  return errs;
}

export const podStrategy: ResourceStrategy<Pod> = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForCreate(pod) {
    if (pod.spec === undefined || pod.spec === null) pod.spec = {};
    setPodDefaults(pod);
    if (isPlainObject(pod.spec)) assertPodQuantities(pod.spec);
    // Status is the kubelet's to report; a new pod starts Pending whatever the client sent.
    pod.status = { phase: 'Pending' };
  },
  prepareForUpdate(pod, old) {
    if (pod.spec === undefined || pod.spec === null) pod.spec = {};
    setPodDefaults(pod);
    if (isPlainObject(pod.spec)) assertPodQuantities(pod.spec);
    // Status changes only through the status subresource, which this server does not serve.
    if (old.status !== undefined) pod.status = structuredClone(old.status);
    else delete pod.status;
  },
  validate: (pod) => validatePodCreate(pod),
  validateUpdate: (pod) => validatePod(pod),
};

const specString = (pod: Pod, field: string) => str(record(pod.spec)[field]);

/** kube's pod field labels (ToSelectableFields); booleans print as Go's strconv does. */
export const podSelectableFields = [
  { name: 'spec.nodeName', value: (pod: Pod) => specString(pod, 'nodeName') },
  { name: 'spec.restartPolicy', value: (pod: Pod) => specString(pod, 'restartPolicy') },
  { name: 'spec.schedulerName', value: (pod: Pod) => specString(pod, 'schedulerName') },
  { name: 'spec.serviceAccountName', value: (pod: Pod) => specString(pod, 'serviceAccountName') },
  { name: 'spec.hostNetwork', value: (pod: Pod) => String(record(pod.spec).hostNetwork === true) },
  { name: 'status.phase', value: (pod: Pod) => str(record(pod.status).phase) },
  { name: 'status.podIP', value: (pod: Pod) => str(record(objects(record(pod.status).podIPs)[0]).ip) },
  { name: 'status.nominatedNodeName', value: (pod: Pod) => str(record(pod.status).nominatedNodeName) },
];

export const podType = coreType<Pod>({
  kind: 'Pod',
  plural: 'pods',
  shortNames: ['po'],
  categories: ['all'],
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  schema: podSchema,
  strategy: podStrategy,
  selectableFields: podSelectableFields,
  table: podTable,
});
