import { labelSelectorSchema, objectMetaSchema } from '../../api/schema/meta';
import { atomicList, atomicStruct, boolean, int64, integer, map, Schema, string, struct, StructSchema } from '../../api/schema/schema';
import {
  keyToPathSchema,
  localObjectReferenceSchema,
  nodeSelectorSchema,
  objectReferenceSchema,
  quantity,
  secretReferenceSchema,
  typedLocalObjectReferenceSchema,
  typedObjectReferenceSchema,
  volumeResourceRequirementsSchema,
} from './common-schemas';

/**
 * Volume sources of core/v1: the pod's VolumeSource and the PersistentVolume's
 * PersistentVolumeSource. Most sources are shared; where the PV variant differs (secret
 * references carry a namespace there) both are spelled out, as in kube's Go types.
 */

const readOnlyFs = { fsType: string(), readOnly: boolean() };

const hostPath = struct({ path: string(), type: string() }, { required: ['path'] });
const emptyDir = struct({ medium: string(), sizeLimit: quantity() });
const gcePersistentDisk = struct({ pdName: string(), partition: integer(), ...readOnlyFs }, { required: ['pdName'] });
const awsElasticBlockStore = struct({ volumeID: string(), partition: integer(), ...readOnlyFs }, { required: ['volumeID'] });
const gitRepo = struct({ repository: string(), revision: string(), directory: string() }, { required: ['repository'] });
const nfs = struct({ server: string(), path: string(), readOnly: boolean() }, { required: ['server', 'path'] });
const flocker = struct({ datasetName: string(), datasetUUID: string() });
const fc = struct({ targetWWNs: atomicList(string()), lun: integer(), wwids: atomicList(string()), ...readOnlyFs });
const vsphereVolume = struct({ volumePath: string(), fsType: string(), storagePolicyName: string(), storagePolicyID: string() }, { required: ['volumePath'] });
const quobyte = struct(
  { registry: string(), volume: string(), readOnly: boolean(), user: string(), group: string(), tenant: string() },
  { required: ['registry', 'volume'] },
);
const azureDisk = struct(
  { diskName: string(), diskURI: string(), cachingMode: string(), kind: string(), ...readOnlyFs },
  { required: ['diskName', 'diskURI'] },
);
const photonPersistentDisk = struct({ pdID: string(), fsType: string() }, { required: ['pdID'] });
const portworxVolume = struct({ volumeID: string(), ...readOnlyFs }, { required: ['volumeID'] });

/** The sources whose secret reference is a LocalObjectReference in pods and a SecretReference in PVs. */
function iscsi(secretRef: Schema): StructSchema {
  return struct(
    {
      targetPortal: string(),
      iqn: string(),
      lun: integer(),
      iscsiInterface: string(),
      portals: atomicList(string()),
      chapAuthDiscovery: boolean(),
      chapAuthSession: boolean(),
      secretRef,
      initiatorName: string(),
      ...readOnlyFs,
    },
    { required: ['targetPortal', 'iqn', 'lun'] },
  );
}

function rbd(secretRef: Schema): StructSchema {
  return struct(
    {
      monitors: atomicList(string()),
      image: string(),
      pool: string(),
      user: string(),
      keyring: string(),
      secretRef,
      ...readOnlyFs,
    },
    { required: ['monitors', 'image'] },
  );
}

function flexVolume(secretRef: Schema): StructSchema {
  return struct({ driver: string(), secretRef, options: map(string()), ...readOnlyFs }, { required: ['driver'] });
}

function cinder(secretRef: Schema): StructSchema {
  return struct({ volumeID: string(), secretRef, ...readOnlyFs }, { required: ['volumeID'] });
}

function cephfs(secretRef: Schema): StructSchema {
  return struct(
    { monitors: atomicList(string()), path: string(), user: string(), secretFile: string(), secretRef, readOnly: boolean() },
    { required: ['monitors'] },
  );
}

function scaleIO(secretRef: Schema): StructSchema {
  return struct(
    {
      gateway: string(),
      system: string(),
      secretRef,
      sslEnabled: boolean(),
      protectionDomain: string(),
      storagePool: string(),
      storageMode: string(),
      volumeName: string(),
      ...readOnlyFs,
    },
    { required: ['gateway', 'system', 'secretRef'] },
  );
}

function storageos(secretRef: Schema): StructSchema {
  return struct({ volumeName: string(), volumeNamespace: string(), secretRef, ...readOnlyFs });
}

const downwardAPIVolumeFile = struct(
  {
    path: string(),
    fieldRef: atomicStruct({ apiVersion: string(), fieldPath: string() }, { required: ['fieldPath'] }),
    resourceFieldRef: atomicStruct({ containerName: string(), resource: string(), divisor: quantity() }, { required: ['resource'] }),
    mode: integer(),
  },
  { required: ['path'] },
);

/** The claim spec, shared by PersistentVolumeClaim and ephemeral volume templates. */
export const persistentVolumeClaimSpecSchema = struct({
  accessModes: atomicList(string()),
  selector: labelSelectorSchema,
  resources: volumeResourceRequirementsSchema,
  volumeName: string(),
  storageClassName: string(),
  volumeMode: string(),
  dataSource: typedLocalObjectReferenceSchema,
  dataSourceRef: typedObjectReferenceSchema,
  volumeAttributesClassName: string(),
});

const volumeProjection = struct({
  secret: struct({ name: string(), items: atomicList(keyToPathSchema), optional: boolean() }),
  downwardAPI: struct({ items: atomicList(downwardAPIVolumeFile) }),
  configMap: struct({ name: string(), items: atomicList(keyToPathSchema), optional: boolean() }),
  serviceAccountToken: struct({ audience: string(), expirationSeconds: int64(), path: string() }, { required: ['path'] }),
  clusterTrustBundle: struct(
    { name: string(), signerName: string(), labelSelector: labelSelectorSchema, optional: boolean(), path: string() },
    { required: ['path'] },
  ),
});

/** core/v1 VolumeSource (one per pod volume). */
export const podVolumeSourceFields: Record<string, Schema> = {
  hostPath,
  emptyDir,
  gcePersistentDisk,
  awsElasticBlockStore,
  gitRepo,
  secret: struct({ secretName: string(), items: atomicList(keyToPathSchema), defaultMode: integer(), optional: boolean() }),
  nfs,
  iscsi: iscsi(localObjectReferenceSchema),
  glusterfs: struct({ endpoints: string(), path: string(), readOnly: boolean() }, { required: ['endpoints', 'path'] }),
  persistentVolumeClaim: struct({ claimName: string(), readOnly: boolean() }, { required: ['claimName'] }),
  rbd: rbd(localObjectReferenceSchema),
  flexVolume: flexVolume(localObjectReferenceSchema),
  cinder: cinder(localObjectReferenceSchema),
  cephfs: cephfs(localObjectReferenceSchema),
  flocker,
  downwardAPI: struct({ items: atomicList(downwardAPIVolumeFile), defaultMode: integer() }),
  fc,
  azureFile: struct({ secretName: string(), shareName: string(), readOnly: boolean() }, { required: ['secretName', 'shareName'] }),
  configMap: struct({ name: string(), items: atomicList(keyToPathSchema), defaultMode: integer(), optional: boolean() }),
  vsphereVolume,
  quobyte,
  azureDisk,
  photonPersistentDisk,
  projected: struct({ sources: atomicList(volumeProjection), defaultMode: integer() }),
  portworxVolume,
  scaleIO: scaleIO(localObjectReferenceSchema),
  storageos: storageos(localObjectReferenceSchema),
  csi: struct(
    { driver: string(), readOnly: boolean(), fsType: string(), volumeAttributes: map(string()), nodePublishSecretRef: localObjectReferenceSchema },
    { required: ['driver'] },
  ),
  ephemeral: struct({ volumeClaimTemplate: struct({ metadata: objectMetaSchema, spec: persistentVolumeClaimSpecSchema }, { required: ['spec'] }) }),
  image: struct({ reference: string(), pullPolicy: string() }),
};

/** core/v1 PersistentVolumeSource. */
export const persistentVolumeSourceFields: Record<string, Schema> = {
  gcePersistentDisk,
  awsElasticBlockStore,
  hostPath,
  glusterfs: struct(
    { endpoints: string(), path: string(), readOnly: boolean(), endpointsNamespace: string() },
    { required: ['endpoints', 'path'] },
  ),
  nfs,
  rbd: rbd(secretReferenceSchema),
  iscsi: iscsi(secretReferenceSchema),
  cinder: cinder(secretReferenceSchema),
  cephfs: cephfs(secretReferenceSchema),
  fc,
  flocker,
  flexVolume: flexVolume(secretReferenceSchema),
  azureFile: struct(
    { secretName: string(), shareName: string(), readOnly: boolean(), secretNamespace: string() },
    { required: ['secretName', 'shareName'] },
  ),
  vsphereVolume,
  quobyte,
  azureDisk,
  photonPersistentDisk,
  portworxVolume,
  scaleIO: scaleIO(secretReferenceSchema),
  local: struct({ path: string(), fsType: string() }, { required: ['path'] }),
  storageos: storageos(objectReferenceSchema),
  csi: struct(
    {
      driver: string(),
      volumeHandle: string(),
      readOnly: boolean(),
      fsType: string(),
      volumeAttributes: map(string()),
      controllerPublishSecretRef: secretReferenceSchema,
      nodeStageSecretRef: secretReferenceSchema,
      nodePublishSecretRef: secretReferenceSchema,
      controllerExpandSecretRef: secretReferenceSchema,
      nodeExpandSecretRef: secretReferenceSchema,
    },
    { required: ['driver', 'volumeHandle'] },
  ),
};

/** PersistentVolume spec.nodeAffinity. */
export const volumeNodeAffinitySchema = struct({ required: nodeSelectorSchema });
