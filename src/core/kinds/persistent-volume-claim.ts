import { FieldError, fieldErrors, FieldPath } from '../../apimachinery/field-errors';
import { jsonEqual } from '../../apimachinery/system-metadata';
import { ResourceStrategy } from '../../runtime/schema/resource-type';
import { objectMetaSchema } from '../../runtime/schema/meta';
import { ageColumn, nameColumn } from '../../runtime/table/columns';
import { TableDefinition } from '../../runtime/table/table';
import { atomicList, field, kindSchema, map, string, struct } from '../../runtime/schema/schema';
import { isPlainObject, KubeObject } from '../../apimachinery/types';
import { nameIsDNSSubdomain } from '../../apimachinery/validation/names';
import { record, str } from '../../apimachinery/validation/shape';
import { conditionList, resourceList } from './common-schemas';
import { coreType } from './core-type';
import { accessModesText, phaseOf, storageClassOf, storageQuantity, unsetOr } from './storage-printing';
import { assertQuantities } from './core-validation';
import { storageRequest, validateAccessModes, validatePositiveQuantity, validateStorageClassName, validateVolumeMode } from './storage-validation';
import { persistentVolumeClaimSpecSchema } from './volume-schemas';

/** The core PersistentVolumeClaim kind (v1). */

export interface PersistentVolumeClaim extends KubeObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

export const persistentVolumeClaimSchema = kindSchema(
  objectMetaSchema,
  {
    spec: field(persistentVolumeClaimSpecSchema, 'spec defines the desired characteristics of a volume requested by a pod author.'),
    status: field(
      struct(
        {
          phase: field(string(), 'phase represents the current phase of PersistentVolumeClaim: Pending, Bound or Lost.'),
          accessModes: field(atomicList(string()), 'accessModes contains the actual access modes the volume backing the PVC has.'),
          capacity: field(resourceList(), 'capacity represents the actual resources of the underlying volume.'),
          conditions: field(
            conditionList(),
            "conditions is the current Condition of persistent volume claim. If underlying persistent volume is being resized then the Condition will be set to 'Resizing'.",
          ),
          allocatedResources: field(
            resourceList(),
            'allocatedResources tracks the resources allocated to a PVC including its capacity. It may be larger than the actual capacity when a volume expansion operation is requested.',
          ),
          allocatedResourceStatuses: field(
            map(string()),
            'allocatedResourceStatuses stores status of resource being resized for the given PVC: ControllerResizeInProgress, ControllerResizeFailed, NodeResizePending, NodeResizeInProgress or NodeResizeFailed.',
          ),
          currentVolumeAttributesClassName: field(string(), 'currentVolumeAttributesClassName is the current name of the VolumeAttributesClass the PVC is using.'),
          modifyVolumeStatus: field(
            struct(
              {
                targetVolumeAttributesClassName: field(string(), 'targetVolumeAttributesClassName is the name of the VolumeAttributesClass the PVC currently being reconciled'),
                status: field(string(), 'status is the status of the ControllerModifyVolume operation: Pending, InProgress or Infeasible.'),
              },
              { required: ['status'], description: 'ModifyVolumeStatus represents the status object of ControllerModifyVolume operation' },
            ),
            'ModifyVolumeStatus represents the status object of ControllerModifyVolume operation. When this is unset, there is no ModifyVolume operation being attempted.',
          ),
        },
        { description: 'PersistentVolumeClaimStatus is the current status of a persistent volume claim.' },
      ),
      'status represents the current information/status of a persistent volume claim. Read-only.',
    ),
  },
  { description: "PersistentVolumeClaim is a user's request for and claim to a persistent volume" },
);

/** kube's ValidatePersistentVolumeClaimSpec, the parts that matter here. */
export function validatePersistentVolumeClaim(pvc: PersistentVolumeClaim): FieldError[] {
  const spec = record(pvc.spec);
  const path = FieldPath.root('spec');
  const errs = validateAccessModes(
    spec.accessModes,
    path.child('accessModes'),
    fieldErrors.required(path.child('accessModes'), 'at least 1 access mode is required'),
  );
  const storagePath = path.child('resources').key('storage');
  const storage = storageRequest(spec.resources);
  if (storage === undefined || storage === null) errs.push(fieldErrors.required(storagePath, ''));
  else errs.push(...validatePositiveQuantity(storage, storagePath));
  errs.push(...validateStorageClassName(spec.storageClassName, path.child('storageClassName')));
  errs.push(...validateVolumeMode(spec.volumeMode, path.child('volumeMode')));
  return errs;
}

/**
 * A claim's spec is fixed once created, except that volumeName may be set once (binding),
 * and the storage request and attributes class may change (expansion, modification).
 */
export function validatePersistentVolumeClaimUpdate(pvc: PersistentVolumeClaim, old: PersistentVolumeClaim): FieldError[] {
  const errs = validatePersistentVolumeClaim(pvc);
  const comparable = (spec: Record<string, unknown>, volumeNameFrom: Record<string, unknown>) => {
    const copy = structuredClone(spec);
    copy.volumeName = str(volumeNameFrom.volumeName) || undefined;
    delete copy.volumeAttributesClassName;
    if (isPlainObject(copy.resources)) delete copy.resources.requests;
    return copy;
  };
  const next = record(pvc.spec);
  const prev = record(old.spec);
  // volumeName may go from empty to a value once; after that it is fixed like the rest.
  const before = comparable(prev, str(prev.volumeName) ? prev : next);
  if (!jsonEqual(comparable(next, next), before)) {
    errs.push(
      fieldErrors.forbidden(FieldPath.root('spec'), 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'),
    );
  }
  return errs;
}

function setDefaults(pvc: PersistentVolumeClaim): void {
  if (isPlainObject(pvc.spec) && !pvc.spec.volumeMode) pvc.spec.volumeMode = 'Filesystem';
}

function assertClaimQuantities(pvc: PersistentVolumeClaim): void {
  const resources = record(record(pvc.spec).resources);
  assertQuantities('PersistentVolumeClaim', [resources.requests, resources.limits]);
}

export const persistentVolumeClaimStrategy: ResourceStrategy<PersistentVolumeClaim> = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForCreate(pvc) {
    if (pvc.spec === undefined || pvc.spec === null) pvc.spec = {};
    assertClaimQuantities(pvc);
    setDefaults(pvc);
    pvc.status = { phase: 'Pending' };
  },
  prepareForUpdate(pvc, old) {
    if (pvc.spec === undefined || pvc.spec === null) pvc.spec = {};
    assertClaimQuantities(pvc);
    setDefaults(pvc);
    if (old.status !== undefined) pvc.status = structuredClone(old.status);
    else delete pvc.status;
  },
  validate: (pvc) => validatePersistentVolumeClaim(pvc),
  validateUpdate: (pvc, old) => validatePersistentVolumeClaimUpdate(pvc, old),
};

/** What a bound claim got (capacity and access modes of status); nothing before it is bound. */
const whenBound = (pvc: PersistentVolumeClaim, text: (status: Record<string, unknown>) => string): string =>
  str(record(pvc.spec).volumeName) ? text(record(pvc.status)) : '';

/** kube's PersistentVolumeClaim printer; VOLUMEMODE only with `-o wide`. */
export const persistentVolumeClaimTable: TableDefinition<PersistentVolumeClaim> = {
  columns: [
    nameColumn,
    { name: 'Status', type: 'string', description: 'phase represents the current phase of PersistentVolumeClaim.', cell: phaseOf },
    {
      name: 'Volume',
      type: 'string',
      description: 'volumeName is the binding reference to the PersistentVolume backing this claim.',
      cell: (pvc) => str(record(pvc.spec).volumeName),
    },
    {
      name: 'Capacity',
      type: 'string',
      description: 'capacity represents the actual resources of the underlying volume.',
      cell: (pvc) => whenBound(pvc, (status) => storageQuantity(status.capacity)),
    },
    {
      name: 'Access Modes',
      type: 'string',
      description:
        'accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1',
      cell: (pvc) => whenBound(pvc, (status) => accessModesText(status.accessModes)),
    },
    { name: 'StorageClass', type: 'string', description: 'StorageClass of the pvc', cell: storageClassOf },
    { name: 'VolumeAttributesClass', type: 'string', description: 'VolumeAttributesClass of the pvc', cell: (pvc) => unsetOr(record(pvc.spec).volumeAttributesClassName) },
    ageColumn,
    {
      name: 'VolumeMode',
      type: 'string',
      priority: 1,
      description: 'volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.',
      cell: (pvc) => unsetOr(record(pvc.spec).volumeMode),
    },
  ],
};

export const persistentVolumeClaimType = coreType<PersistentVolumeClaim>({
  kind: 'PersistentVolumeClaim',
  plural: 'persistentvolumeclaims',
  shortNames: ['pvc'],
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  schema: persistentVolumeClaimSchema,
  strategy: persistentVolumeClaimStrategy,
  table: persistentVolumeClaimTable,
});
