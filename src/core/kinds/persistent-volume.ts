import { FieldError, fieldErrors, FieldPath } from '../../apimachinery/field-errors';
import { jsonEqual, nowTimestamp } from '../../apimachinery/system-metadata';
import { ResourceStrategy } from '../../runtime/schema/resource-type';
import { objectMetaSchema } from '../../runtime/schema/meta';
import { ageColumn, nameColumn } from '../../runtime/table/columns';
import { TableDefinition } from '../../runtime/table/table';
import { atomicList, dateTime, field, kindSchema, string, struct } from '../../runtime/schema/schema';
import { isPlainObject, KubeObject } from '../../apimachinery/types';
import { nameIsDNSSubdomain } from '../../apimachinery/validation/names';
import { record, str } from '../../apimachinery/validation/shape';
import { accessModesText, phaseOf, storageClassOf, storageQuantity, unsetOr } from './storage-printing';
import { objectReferenceFields, resourceList } from './common-schemas';
import { coreType } from './core-type';
import { assertQuantities, validateOneOf } from './core-validation';
import { validateAccessModes, validatePositiveQuantity, validateStorageClassName, validateVolumeMode } from './storage-validation';
import { persistentVolumeSourceFields, volumeNodeAffinitySchema } from './volume-schemas';

/** The core PersistentVolume kind (v1, cluster-scoped). */

export interface PersistentVolume extends KubeObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

const VOLUME_SOURCES = Object.keys(persistentVolumeSourceFields);
/** Sorted, as kube's set lists them. */
const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];

export const persistentVolumeSchema = kindSchema(
  objectMetaSchema,
  {
    spec: field(
      struct(
        {
          capacity: field(resourceList(), "capacity is the description of the persistent volume's resources and capacity."),
          ...persistentVolumeSourceFields,
          accessModes: field(atomicList(string()), 'accessModes contains all ways the volume can be mounted: ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod.'),
          // claimRef is `+structType=granular`, unlike other object references.
          claimRef: field(
            struct(objectReferenceFields, { description: 'ObjectReference contains enough information to let you inspect or modify the referred object.' }),
            'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC.',
          ),
          persistentVolumeReclaimPolicy: field(
            string(),
            'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim: Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes) or Recycle (deprecated).',
          ),
          storageClassName: field(string(), 'storageClassName is the name of StorageClass to which this persistent volume belongs. Empty value means that this volume does not belong to any StorageClass.'),
          mountOptions: field(atomicList(string()), 'mountOptions is the list of mount options, e.g. ["ro", "soft"]. Not validated - mount will simply fail if one is invalid.'),
          volumeMode: field(string(), 'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.'),
          nodeAffinity: field(volumeNodeAffinitySchema, 'nodeAffinity defines constraints that limit what nodes this volume can be accessed from. This field influences the scheduling of pods that use this volume.'),
          volumeAttributesClassName: field(string(), 'Name of VolumeAttributesClass to which this persistent volume belongs. Empty value is not allowed.'),
        },
        { description: 'PersistentVolumeSpec is the specification of a persistent volume.' },
      ),
      'spec defines a specification of a persistent volume owned by the cluster. Provisioned by an administrator.',
    ),
    status: field(
      struct(
        {
          phase: field(string(), 'phase indicates if a volume is available, bound to a claim, or released by a claim: Pending, Available, Bound, Released or Failed.'),
          message: field(string(), 'message is a human-readable message indicating details about why the volume is in this state.'),
          reason: field(string(), 'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.'),
          lastPhaseTransitionTime: field(
            dateTime(),
            'lastPhaseTransitionTime is the time the phase transitioned from one to another and automatically resets to current time everytime a volume phase transitions.',
          ),
        },
        { description: 'PersistentVolumeStatus is the current status of a persistent volume.' },
      ),
      'status represents the current information/status for the persistent volume. Populated by the system. Read-only.',
    ),
  },
  {
    description:
      'PersistentVolume (PV) is a storage resource provisioned by an administrator. It is analogous to a node. Here it is stored so that the Node authorizer can follow claims to their volumes and the secrets those use.',
  },
);

function sourceOf(spec: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(VOLUME_SOURCES.filter((s) => spec[s] !== undefined && spec[s] !== null).map((s) => [s, spec[s]]));
}

/** kube's ValidatePersistentVolumeSpec, the parts that matter here. */
export function validatePersistentVolume(pv: PersistentVolume): FieldError[] {
  const spec = record(pv.spec);
  const path = FieldPath.root('spec');
  const errs = validateAccessModes(spec.accessModes, path.child('accessModes'), fieldErrors.required(path.child('accessModes'), ''));
  const capacity = record(spec.capacity);
  if (!Object.keys(capacity).length) errs.push(fieldErrors.required(path.child('capacity'), ''));
  if (!('storage' in capacity) || Object.keys(capacity).length > 1) errs.push(fieldErrors.notSupported(path.child('capacity'), capacity, ['storage']));
  for (const [name, value] of Object.entries(capacity)) errs.push(...validatePositiveQuantity(value, path.child('capacity').key(name)));
  errs.push(...validateStorageClassName(spec.storageClassName, path.child('storageClassName')));
  errs.push(...validateOneOf(spec.persistentVolumeReclaimPolicy, RECLAIM_POLICIES, path.child('persistentVolumeReclaimPolicy')));
  errs.push(...validateVolumeMode(spec.volumeMode, path.child('volumeMode')));
  const sources = VOLUME_SOURCES.filter((s) => isPlainObject(spec[s]));
  if (!sources.length) errs.push(fieldErrors.required(path, 'must specify a volume type'));
  for (const extra of sources.slice(1)) errs.push(fieldErrors.forbidden(path.child(extra), 'may not specify more than 1 volume type'));
  return errs;
}

/** The volume source cannot change once created (it is what the secrets a node may read hang off). */
export function validatePersistentVolumeUpdate(pv: PersistentVolume, old: PersistentVolume): FieldError[] {
  const errs = validatePersistentVolume(pv);
  if (!jsonEqual(sourceOf(record(pv.spec)), sourceOf(record(old.spec)))) {
    errs.push(fieldErrors.forbidden(FieldPath.root('spec').child('persistentvolumesource'), 'spec.persistentvolumesource is immutable after creation'));
  }
  return errs;
}

/** SetDefaults_PersistentVolume. */
function setDefaults(pv: PersistentVolume): void {
  if (!isPlainObject(pv.spec)) return;
  if (!pv.spec.persistentVolumeReclaimPolicy) pv.spec.persistentVolumeReclaimPolicy = 'Retain';
  if (!pv.spec.volumeMode) pv.spec.volumeMode = 'Filesystem';
}

export const persistentVolumeStrategy: ResourceStrategy<PersistentVolume> = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForCreate(pv) {
    if (pv.spec === undefined || pv.spec === null) pv.spec = {};
    assertQuantities('PersistentVolume', [record(pv.spec).capacity]);
    setDefaults(pv);
    pv.status = { phase: 'Pending', lastPhaseTransitionTime: nowTimestamp() };
  },
  prepareForUpdate(pv, old) {
    if (pv.spec === undefined || pv.spec === null) pv.spec = {};
    assertQuantities('PersistentVolume', [record(pv.spec).capacity]);
    setDefaults(pv);
    if (old.status !== undefined) pv.status = structuredClone(old.status);
    else delete pv.status;
  },
  validate: (pv) => validatePersistentVolume(pv),
  validateUpdate: (pv, old) => validatePersistentVolumeUpdate(pv, old),
};

/** The claim a volume is bound to, `namespace/name` (empty when unbound). */
function claimOf(pv: PersistentVolume): string {
  const ref = record(pv.spec).claimRef;
  return ref === undefined || ref === null ? '' : `${str(record(ref).namespace)}/${str(record(ref).name)}`;
}

/** kube's PersistentVolume printer; VOLUMEMODE only with `-o wide`. */
export const persistentVolumeTable: TableDefinition<PersistentVolume> = {
  columns: [
    nameColumn,
    {
      name: 'Capacity',
      type: 'string',
      description: "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity",
      cell: (pv) => storageQuantity(record(pv.spec).capacity),
    },
    {
      name: 'Access Modes',
      type: 'string',
      description: 'accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes',
      cell: (pv) => accessModesText(record(pv.spec).accessModes),
    },
    {
      name: 'Reclaim Policy',
      type: 'string',
      description:
        'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming',
      cell: (pv) => str(record(pv.spec).persistentVolumeReclaimPolicy),
    },
    {
      name: 'Status',
      type: 'string',
      description: 'phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase',
      cell: phaseOf,
    },
    {
      name: 'Claim',
      type: 'string',
      description:
        'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding',
      cell: claimOf,
    },
    { name: 'StorageClass', type: 'string', description: 'StorageClass of the pv', cell: storageClassOf },
    { name: 'VolumeAttributesClass', type: 'string', description: 'VolumeAttributesClass of the pv', cell: (pv) => unsetOr(record(pv.spec).volumeAttributesClassName) },
    {
      name: 'Reason',
      type: 'string',
      description: 'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.',
      cell: (pv) => str(record(pv.status).reason),
    },
    ageColumn,
    {
      name: 'VolumeMode',
      type: 'string',
      priority: 1,
      description: 'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.',
      cell: (pv) => unsetOr(record(pv.spec).volumeMode),
    },
  ],
};

export const persistentVolumeType = coreType<PersistentVolume>({
  kind: 'PersistentVolume',
  plural: 'persistentvolumes',
  shortNames: ['pv'],
  namespaced: false,
  nameValidator: nameIsDNSSubdomain,
  schema: persistentVolumeSchema,
  strategy: persistentVolumeStrategy,
  table: persistentVolumeTable,
});
