import { labelSelectorSchema, objectMetaSchema } from '../../runtime/schema/meta';
import { atomicList, atomicStruct, boolean, field, FieldDeclaration, int64, integer, map, Schema, string, struct, StructSchema } from '../../runtime/schema/schema';
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

const FS_TYPE = 'fsType is the filesystem type of the volume to mount, e.g. "ext4", "xfs", "ntfs". Implicitly inferred to be "ext4" if unspecified.';
const READ_ONLY = 'readOnly here will force the ReadOnly setting in VolumeMounts. Defaults to false.';
const readOnlyFs: Record<string, FieldDeclaration> = { fsType: field(string(), FS_TYPE), readOnly: field(boolean(), READ_ONLY) };
const PARTITION =
  'partition is the partition in the volume that you want to mount. If omitted, the default is to mount by volume name, e.g. for volume /dev/sda1 you specify the partition as "1"; 0 (or leaving it empty) mounts the whole volume.';
const DEFAULT_MODE =
  'defaultMode is optional: mode bits used to set permissions on created files by default. Must be an octal value between 0000 and 0777 or a decimal value between 0 and 511. Defaults to 0644.';
const ITEMS =
  'items, if unspecified, projects each key-value pair of the data as a file whose name is the key and whose content is the value. If specified, the listed keys are projected into the given paths, and unlisted keys are not present.';
const OPTIONAL_SOURCE = 'optional specifies whether the referenced object or its keys must be defined';
const MONITORS = 'monitors is a collection of Ceph monitors.';

const hostPath = struct(
  {
    path: field(string(), 'path of the directory on the host. If the path is a symlink, it will follow the link to the real path.'),
    type: field(string(), 'type for HostPath Volume (DirectoryOrCreate, Directory, FileOrCreate, File, Socket, CharDevice, BlockDevice). Defaults to "".'),
  },
  { required: ['path'], description: 'Represents a host path mapped into a pod.' },
);
const emptyDir = struct(
  {
    medium: field(string(), 'medium represents what type of storage medium should back this directory. The default is "" which means to use the node\'s default medium; "Memory" uses tmpfs.'),
    sizeLimit: field(quantity(), 'sizeLimit is the total amount of local storage required for this EmptyDir volume. The default is nil which means that the limit is undefined.'),
  },
  { description: 'Represents an empty directory for a pod.' },
);
const gcePersistentDisk = struct(
  { pdName: field(string(), 'pdName is unique name of the PD resource in GCE. Used to identify the disk in GCE.'), partition: field(integer(), PARTITION), ...readOnlyFs },
  { required: ['pdName'], description: 'Represents a Persistent Disk resource in Google Compute Engine.' },
);
const awsElasticBlockStore = struct(
  { volumeID: field(string(), 'volumeID is unique ID of the persistent disk resource in AWS (Amazon EBS volume).'), partition: field(integer(), PARTITION), ...readOnlyFs },
  { required: ['volumeID'], description: 'Represents a Persistent Disk resource in AWS.' },
);
const gitRepo = struct(
  {
    repository: field(string(), 'repository is the URL'),
    revision: field(string(), 'revision is the commit hash for the specified revision.'),
    directory: field(
      string(),
      "directory is the target directory name. Must not contain or start with '..'. If '.' is supplied, the volume directory will be the git repository; otherwise the repository is in the subdirectory with the given name.",
    ),
  },
  { required: ['repository'], description: 'Represents a volume that is populated with the contents of a git repository (deprecated).' },
);
const nfs = struct(
  {
    server: field(string(), 'server is the hostname or IP address of the NFS server.'),
    path: field(string(), 'path that is exported by the NFS server.'),
    readOnly: field(boolean(), 'readOnly here will force the NFS export to be mounted with read-only permissions. Defaults to false.'),
  },
  { required: ['server', 'path'], description: 'Represents an NFS mount that lasts the lifetime of a pod.' },
);
const flocker = struct(
  {
    datasetName: field(string(), 'datasetName is Name of the dataset stored as metadata -> name on the dataset for Flocker; should be considered as deprecated'),
    datasetUUID: field(string(), 'datasetUUID is the UUID of the dataset. This is unique identifier of a Flocker dataset'),
  },
  { description: 'Represents a Flocker volume mounted by the Flocker agent.' },
);
const fc = struct(
  {
    targetWWNs: field(atomicList(string()), 'targetWWNs is Optional: FC target worldwide names (WWNs)'),
    lun: field(integer(), 'lun is Optional: FC target lun number'),
    wwids: field(atomicList(string()), 'wwids Optional: FC volume world wide identifiers (wwids). Either wwids or combination of targetWWNs and lun must be set, but not both simultaneously.'),
    ...readOnlyFs,
  },
  { description: 'Represents a Fibre Channel volume.' },
);
const vsphereVolume = struct(
  {
    volumePath: field(string(), 'volumePath is the path that identifies vSphere volume vmdk'),
    fsType: field(string(), FS_TYPE),
    storagePolicyName: field(string(), 'storagePolicyName is the storage Policy Based Management (SPBM) profile name.'),
    storagePolicyID: field(string(), 'storagePolicyID is the storage Policy Based Management (SPBM) profile ID associated with the StoragePolicyName.'),
  },
  { required: ['volumePath'], description: 'Represents a vSphere volume resource.' },
);
const quobyte = struct(
  {
    registry: field(string(), 'registry represents a single or multiple Quobyte Registry services specified as a string as host:port pair (multiple entries are separated with commas)'),
    volume: field(string(), 'volume is a string that references an already created Quobyte volume by name.'),
    readOnly: field(boolean(), 'readOnly here will force the Quobyte volume to be mounted with read-only permissions. Defaults to false.'),
    user: field(string(), 'user to map volume access to. Defaults to serivceaccount user'),
    group: field(string(), 'group to map volume access to. Default is no group'),
    tenant: field(string(), 'tenant owning the given Quobyte volume in the Backend. Used with dynamically provisioned Quobyte volumes, value is set by the plugin'),
  },
  { required: ['registry', 'volume'], description: 'Represents a Quobyte mount that lasts the lifetime of a pod.' },
);
const azureDisk = struct(
  {
    diskName: field(string(), 'diskName is the Name of the data disk in the blob storage'),
    diskURI: field(string(), 'diskURI is the URI of data disk in the blob storage'),
    cachingMode: field(string(), 'cachingMode is the Host Caching mode: None, Read Only, Read Write.'),
    kind: field(string(), 'kind expected values are Shared (multiple blob disks per storage account), Dedicated (single blob disk per storage account) and Managed (azure managed data disk, only in managed availability set). Defaults to shared'),
    ...readOnlyFs,
  },
  { required: ['diskName', 'diskURI'], description: 'AzureDisk represents an Azure Data Disk mount on the host and bind mount to the pod.' },
);
const photonPersistentDisk = struct(
  { pdID: field(string(), 'pdID is the ID that identifies Photon Controller persistent disk'), fsType: field(string(), FS_TYPE) },
  { required: ['pdID'], description: 'Represents a Photon Controller persistent disk resource.' },
);
const portworxVolume = struct(
  { volumeID: field(string(), 'volumeID uniquely identifies a Portworx volume'), ...readOnlyFs },
  { required: ['volumeID'], description: 'PortworxVolumeSource represents a Portworx volume resource.' },
);

/** The sources whose secret reference is a LocalObjectReference in pods and a SecretReference in PVs. */
function iscsi(secretRef: Schema): StructSchema {
  return struct(
    {
      targetPortal: field(string(), 'targetPortal is iSCSI Target Portal. The Portal is either an IP or ip_addr:port if the port is other than default (typically TCP ports 860 and 3260).'),
      iqn: field(string(), 'iqn is the target iSCSI Qualified Name.'),
      lun: field(integer(), 'lun represents iSCSI Target Lun number.'),
      iscsiInterface: field(string(), "iscsiInterface is the interface Name that uses an iSCSI transport. Defaults to 'default' (tcp)."),
      portals: field(atomicList(string()), 'portals is the iSCSI Target Portal List. The portal is either an IP or ip_addr:port if the port is other than default (typically TCP ports 860 and 3260).'),
      chapAuthDiscovery: field(boolean(), 'chapAuthDiscovery defines whether support iSCSI Discovery CHAP authentication'),
      chapAuthSession: field(boolean(), 'chapAuthSession defines whether support iSCSI Session CHAP authentication'),
      secretRef: field(secretRef, 'secretRef is the CHAP Secret for iSCSI target and initiator authentication'),
      initiatorName: field(
        string(),
        'initiatorName is the custom iSCSI Initiator Name. If initiatorName is specified with iscsiInterface simultaneously, new iSCSI interface <target portal>:<volume name> will be created for the connection.',
      ),
      ...readOnlyFs,
    },
    { required: ['targetPortal', 'iqn', 'lun'], description: 'Represents an ISCSI disk. ISCSI volumes can only be mounted as read/write once.' },
  );
}

function rbd(secretRef: Schema): StructSchema {
  return struct(
    {
      monitors: field(atomicList(string()), MONITORS),
      image: field(string(), 'image is the rados image name.'),
      pool: field(string(), 'pool is the rados pool name. Default is rbd.'),
      user: field(string(), 'user is the rados user name. Default is admin.'),
      keyring: field(string(), 'keyring is the path to key ring for RBDUser. Default is /etc/ceph/keyring.'),
      secretRef: field(secretRef, 'secretRef is name of the authentication secret for RBDUser. If provided overrides keyring. Default is nil.'),
      ...readOnlyFs,
    },
    { required: ['monitors', 'image'], description: 'Represents a Rados Block Device mount that lasts the lifetime of a pod.' },
  );
}

function flexVolume(secretRef: Schema): StructSchema {
  return struct(
    {
      driver: field(string(), 'driver is the name of the driver to use for this volume.'),
      secretRef: field(secretRef, 'secretRef is Optional: reference to the secret object containing sensitive information to pass to the plugin scripts. This may be empty if no secret object is specified.'),
      options: field(map(string()), 'options is Optional: this field holds extra command options if any.'),
      ...readOnlyFs,
    },
    { required: ['driver'], description: 'FlexVolume represents a generic volume resource that is provisioned/attached using an exec based plugin.' },
  );
}

function cinder(secretRef: Schema): StructSchema {
  return struct(
    {
      volumeID: field(string(), 'volumeID used to identify the volume in cinder.'),
      secretRef: field(secretRef, 'secretRef is optional: points to a secret object containing parameters used to connect to OpenStack.'),
      ...readOnlyFs,
    },
    { required: ['volumeID'], description: 'Represents a cinder volume resource in Openstack.' },
  );
}

function cephfs(secretRef: Schema): StructSchema {
  return struct(
    {
      monitors: field(atomicList(string()), MONITORS),
      path: field(string(), 'path is Optional: Used as the mounted root, rather than the full Ceph tree, default is /'),
      user: field(string(), 'user is optional: User is the rados user name, default is admin'),
      secretFile: field(string(), 'secretFile is Optional: SecretFile is the path to key ring for User, default is /etc/ceph/user.secret'),
      secretRef: field(secretRef, 'secretRef is Optional: SecretRef is reference to the authentication secret for User, default is empty.'),
      readOnly: field(boolean(), READ_ONLY),
    },
    { required: ['monitors'], description: 'Represents a Ceph Filesystem mount that lasts the lifetime of a pod.' },
  );
}

function scaleIO(secretRef: Schema): StructSchema {
  return struct(
    {
      gateway: field(string(), 'gateway is the host address of the ScaleIO API Gateway.'),
      system: field(string(), 'system is the name of the storage system as configured in ScaleIO.'),
      secretRef: field(secretRef, 'secretRef references to the secret for ScaleIO user and other sensitive information. If this is not provided, Login operation will fail.'),
      sslEnabled: field(boolean(), 'sslEnabled Flag enable/disable SSL communication with Gateway, default false'),
      protectionDomain: field(string(), 'protectionDomain is the name of the ScaleIO Protection Domain for the configured storage.'),
      storagePool: field(string(), 'storagePool is the ScaleIO Storage Pool associated with the protection domain.'),
      storageMode: field(string(), 'storageMode indicates whether the storage for a volume should be ThickProvisioned or ThinProvisioned. Default is ThinProvisioned.'),
      volumeName: field(string(), 'volumeName is the name of a volume already created in the ScaleIO system that is associated with this volume source.'),
      ...readOnlyFs,
    },
    { required: ['gateway', 'system', 'secretRef'], description: 'ScaleIOVolumeSource represents a persistent ScaleIO volume' },
  );
}

function storageos(secretRef: Schema): StructSchema {
  return struct(
    {
      volumeName: field(string(), 'volumeName is the human-readable name of the StorageOS volume. Volume names are only unique within a namespace.'),
      volumeNamespace: field(
        string(),
        "volumeNamespace specifies the scope of the volume within StorageOS. If no namespace is specified then the Pod's namespace will be used.",
      ),
      secretRef: field(secretRef, 'secretRef specifies the secret to use for obtaining the StorageOS API credentials. If not specified, default values will be attempted.'),
      ...readOnlyFs,
    },
    { description: 'Represents a StorageOS persistent volume resource.' },
  );
}

/** The downward API selectors, shared by volume files and environment variables. */
export const objectFieldSelectorSchema = atomicStruct(
  {
    apiVersion: field(string(), 'Version of the schema the FieldPath is written in terms of, defaults to "v1".'),
    fieldPath: field(string(), 'Path of the field to select in the specified API version.'),
  },
  { required: ['fieldPath'], description: 'ObjectFieldSelector selects an APIVersioned field of an object.' },
);

export const resourceFieldSelectorSchema = atomicStruct(
  {
    containerName: field(string(), 'Container name: required for volumes, optional for env vars'),
    resource: field(string(), 'Required: resource to select'),
    divisor: field(quantity(), 'Specifies the output format of the exposed resources, defaults to "1"'),
  },
  { required: ['resource'], description: 'ResourceFieldSelector represents container resources (cpu, memory) and their output format' },
);

const downwardAPIVolumeFile = struct(
  {
    path: field(
      string(),
      "Required: Path is the relative path name of the file to be created. Must not be absolute or contain the '..' path. Must be utf-8 encoded. The first item of the relative path must not start with '..'",
    ),
    fieldRef: field(objectFieldSelectorSchema, 'Required: Selects a field of the pod: only annotations, labels, name, namespace and uid are supported.'),
    resourceFieldRef: field(
      resourceFieldSelectorSchema,
      'Selects a resource of the container: only resources limits and requests (limits.cpu, limits.memory, requests.cpu and requests.memory) are currently supported.',
    ),
    mode: field(
      integer(),
      'Optional: mode bits used to set permissions on this file, must be an octal value between 0000 and 0777 or a decimal value between 0 and 511. If not specified, the volume defaultMode will be used.',
    ),
  },
  { required: ['path'], description: 'DownwardAPIVolumeFile represents information to create the file containing the pod field' },
);

/** The claim spec, shared by PersistentVolumeClaim and ephemeral volume templates. */
export const persistentVolumeClaimSpecSchema = struct(
  {
    accessModes: field(atomicList(string()), 'accessModes contains the desired access modes the volume should have: ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod.'),
    selector: field(labelSelectorSchema, 'selector is a label query over volumes to consider for binding.'),
    resources: field(
      volumeResourceRequirementsSchema,
      'resources represents the minimum resources the volume should have. Users are allowed to specify resource requirements that are lower than previous value but must still be higher than capacity recorded in the status field of the claim.',
    ),
    volumeName: field(string(), 'volumeName is the binding reference to the PersistentVolume backing this claim.'),
    storageClassName: field(string(), 'storageClassName is the name of the StorageClass required by the claim.'),
    volumeMode: field(string(), 'volumeMode defines what type of volume is required by the claim: Block or Filesystem. Value of Filesystem is implied when not included in claim spec.'),
    dataSource: field(
      typedLocalObjectReferenceSchema,
      'dataSource field can be used to specify either an existing VolumeSnapshot object, an existing PVC, or a populator object. The new volume is then created with the contents of the data source.',
    ),
    dataSourceRef: field(
      typedObjectReferenceSchema,
      'dataSourceRef specifies the object from which to populate the volume with data, if a non-empty volume is desired. Unlike dataSource, it may name any object of a non-core group, and objects of another namespace.',
    ),
    volumeAttributesClassName: field(string(), 'volumeAttributesClassName may be used to set the VolumeAttributesClass used by this claim.'),
  },
  { description: 'PersistentVolumeClaimSpec describes the common attributes of storage devices and allows a Source for provider-specific attributes' },
);

const projectedSource = (what: string) => ({
  name: field(string(), 'Name of the referent.'),
  items: field(atomicList(keyToPathSchema), ITEMS),
  optional: field(boolean(), `optional field specify whether the ${what} or its key must be defined`),
});

const volumeProjection = struct(
  {
    secret: field(
      struct(projectedSource('Secret'), { description: 'Adapts a secret into a projected volume.' }),
      'secret information about the secret data to project',
    ),
    downwardAPI: field(
      struct({ items: field(atomicList(downwardAPIVolumeFile), 'Items is a list of DownwardAPIVolume file') }, { description: 'Represents downward API info for projecting into a projected volume.' }),
      'downwardAPI information about the downwardAPI data to project',
    ),
    configMap: field(
      struct(projectedSource('ConfigMap'), { description: 'Adapts a ConfigMap into a projected volume.' }),
      'configMap information about the configMap data to project',
    ),
    serviceAccountToken: field(
      struct(
        {
          audience: field(
            string(),
            'audience is the intended audience of the token. A recipient of a token must identify itself with an identifier specified in the audience of the token. Defaults to the identifier of the apiserver.',
          ),
          expirationSeconds: field(
            int64(),
            'expirationSeconds is the requested duration of validity of the service account token. The kubelet starts trying to rotate the token when it is older than 80 percent of its time to live. Defaults to 1 hour and must be at least 10 minutes.',
          ),
          path: field(string(), 'path is the path relative to the mount point of the file to project the token into.'),
        },
        { required: ['path'], description: 'ServiceAccountTokenProjection represents a projected service account token volume.' },
      ),
      'serviceAccountToken is information about the serviceAccountToken data to project',
    ),
    clusterTrustBundle: field(
      struct(
        {
          name: field(string(), 'Select a single ClusterTrustBundle by object name. Mutually-exclusive with signerName and labelSelector.'),
          signerName: field(string(), 'Select all ClusterTrustBundles that match this signer name. Mutually-exclusive with name.'),
          labelSelector: field(labelSelectorSchema, 'Select all ClusterTrustBundles that match this label selector. Only has effect if signerName is set.'),
          optional: field(boolean(), "If true, don't block pod startup if the referenced ClusterTrustBundle(s) aren't available."),
          path: field(string(), 'Relative path from the volume root to write the bundle.'),
        },
        { required: ['path'], description: 'ClusterTrustBundleProjection describes how to select a set of ClusterTrustBundle objects and project their contents into the pod filesystem.' },
      ),
      'ClusterTrustBundle allows a pod to access the `.spec.trustBundle` field of ClusterTrustBundle objects in an auto-updating file.',
    ),
  },
  { description: 'Projection that may be projected along with other supported volume types. Exactly one of these fields must be set.' },
);

const SOURCE = {
  hostPath:
    'hostPath represents a pre-existing file or directory on the host machine that is directly exposed to the container. This is generally used for system agents or other privileged things that are allowed to see the host machine.',
  gcePersistentDisk: 'gcePersistentDisk represents a GCE Disk resource that is attached to a kubelet\'s host machine and then exposed to the pod. Deprecated.',
  awsElasticBlockStore: "awsElasticBlockStore represents an AWS Disk resource that is attached to a kubelet's host machine and then exposed to the pod. Deprecated.",
  nfs: "nfs represents an NFS mount on the host that shares a pod's lifetime",
  iscsi: "iscsi represents an ISCSI Disk resource that is attached to a kubelet's host machine and then exposed to the pod.",
  glusterfs: 'glusterfs represents a Glusterfs mount on the host that shares a pod\'s lifetime. Deprecated.',
  rbd: "rbd represents a Rados Block Device mount on the host that shares a pod's lifetime. Deprecated.",
  flexVolume: 'flexVolume represents a generic volume resource that is provisioned/attached using an exec based plugin. Deprecated.',
  cinder: 'cinder represents a cinder volume attached and mounted on kubelets host machine. Deprecated.',
  cephfs: "cephFS represents a Ceph FS mount on the host that shares a pod's lifetime. Deprecated.",
  flocker: "flocker represents a Flocker volume attached to a kubelet's host machine. This depends on the Flocker control service being running. Deprecated.",
  fc: "fc represents a Fibre Channel resource that is attached to a kubelet's host machine and then exposed to the pod.",
  azureFile: 'azureFile represents an Azure File Service mount on the host and bind mount to the pod. Deprecated.',
  vsphereVolume: 'vsphereVolume represents a vSphere volume attached and mounted on kubelets host machine. Deprecated.',
  quobyte: "quobyte represents a Quobyte mount on the host that shares a pod's lifetime. Deprecated.",
  azureDisk: 'azureDisk represents an Azure Data Disk mount on the host and bind mount to the pod. Deprecated.',
  photonPersistentDisk: 'photonPersistentDisk represents a PhotonController persistent disk attached and mounted on kubelets host machine. Deprecated.',
  portworxVolume: 'portworxVolume represents a portworx volume attached and mounted on kubelets host machine. Deprecated.',
  scaleIO: 'scaleIO represents a ScaleIO persistent volume attached and mounted on Kubernetes nodes. Deprecated.',
  storageos: 'storageOS represents a StorageOS volume attached and mounted on Kubernetes nodes. Deprecated.',
  csi: 'csi represents storage that is handled by an external CSI driver.',
};

const AZURE_FILE = {
  secretName: field(string(), 'secretName is the name of secret that contains Azure Storage Account Name and Key'),
  shareName: field(string(), 'shareName is the azure share Name'),
  readOnly: field(boolean(), READ_ONLY),
};
const GLUSTERFS = {
  endpoints: field(string(), 'endpoints is the endpoint name that details Glusterfs topology.'),
  path: field(string(), 'path is the Glusterfs volume path.'),
  readOnly: field(boolean(), 'readOnly here will force the Glusterfs volume to be mounted with read-only permissions. Defaults to false.'),
};
const CSI_COMMON = {
  driver: field(string(), 'driver is the name of the CSI driver that handles this volume. Consult with your admin for the correct name as registered in the cluster.'),
  readOnly: field(boolean(), 'readOnly value to pass to the driver as the volume is published. Defaults to false (read/write).'),
  fsType: field(string(), 'fsType to mount. Ex. "ext4", "xfs", "ntfs". If not provided, the empty value is passed to the associated CSI driver which will determine the default filesystem to apply.'),
  volumeAttributes: field(map(string()), "volumeAttributes stores driver-specific properties that are passed to the CSI driver. Consult your driver's documentation for supported values."),
};
const csiSecret = (call: string) =>
  `${call} is a reference to the secret object containing sensitive information to pass to the CSI driver to complete the CSI ${call.replace(/SecretRef$/, '')} call. This field is optional, and may be empty if no secret is required.`;

/** core/v1 VolumeSource (one per pod volume). */
export const podVolumeSourceFields: Record<string, FieldDeclaration> = {
  hostPath: field(hostPath, SOURCE.hostPath),
  emptyDir: field(emptyDir, "emptyDir represents a temporary directory that shares a pod's lifetime."),
  gcePersistentDisk: field(gcePersistentDisk, SOURCE.gcePersistentDisk),
  awsElasticBlockStore: field(awsElasticBlockStore, SOURCE.awsElasticBlockStore),
  gitRepo: field(gitRepo, 'gitRepo represents a git repository at a particular revision. Deprecated: use an EmptyDir populated by an InitContainer instead.'),
  secret: field(
    struct(
      {
        secretName: field(string(), "secretName is the name of the secret in the pod's namespace to use."),
        items: field(atomicList(keyToPathSchema), ITEMS),
        defaultMode: field(integer(), DEFAULT_MODE),
        optional: field(boolean(), 'optional field specify whether the Secret or its keys must be defined'),
      },
      { description: 'Adapts a Secret into a volume: its data is projected as files.' },
    ),
    'secret represents a secret that should populate this volume.',
  ),
  nfs: field(nfs, SOURCE.nfs),
  iscsi: field(iscsi(localObjectReferenceSchema), SOURCE.iscsi),
  glusterfs: field(struct(GLUSTERFS, { required: ['endpoints', 'path'], description: 'Represents a Glusterfs mount that lasts the lifetime of a pod.' }), SOURCE.glusterfs),
  persistentVolumeClaim: field(
    struct(
      {
        claimName: field(string(), 'claimName is the name of a PersistentVolumeClaim in the same namespace as the pod using this volume.'),
        readOnly: field(boolean(), 'readOnly Will force the ReadOnly setting in VolumeMounts. Default false.'),
      },
      { required: ['claimName'], description: "PersistentVolumeClaimVolumeSource references the user's PVC in the same namespace." },
    ),
    'persistentVolumeClaimVolumeSource represents a reference to a PersistentVolumeClaim in the same namespace.',
  ),
  rbd: field(rbd(localObjectReferenceSchema), SOURCE.rbd),
  flexVolume: field(flexVolume(localObjectReferenceSchema), SOURCE.flexVolume),
  cinder: field(cinder(localObjectReferenceSchema), SOURCE.cinder),
  cephfs: field(cephfs(localObjectReferenceSchema), SOURCE.cephfs),
  flocker: field(flocker, SOURCE.flocker),
  downwardAPI: field(
    struct(
      { items: field(atomicList(downwardAPIVolumeFile), 'Items is a list of downward API volume file'), defaultMode: field(integer(), DEFAULT_MODE) },
      { description: 'DownwardAPIVolumeSource represents a volume containing downward API info.' },
    ),
    'downwardAPI represents downward API about the pod that should populate this volume',
  ),
  fc: field(fc, SOURCE.fc),
  azureFile: field(struct(AZURE_FILE, { required: ['secretName', 'shareName'], description: 'AzureFile represents an Azure File Service mount on the host and bind mount to the pod.' }), SOURCE.azureFile),
  configMap: field(
    struct(
      { name: field(string(), 'Name of the referent.'), items: field(atomicList(keyToPathSchema), ITEMS), defaultMode: field(integer(), DEFAULT_MODE), optional: field(boolean(), OPTIONAL_SOURCE) },
      { description: 'Adapts a ConfigMap into a volume: its data is projected as files.' },
    ),
    'configMap represents a configMap that should populate this volume',
  ),
  vsphereVolume: field(vsphereVolume, SOURCE.vsphereVolume),
  quobyte: field(quobyte, SOURCE.quobyte),
  azureDisk: field(azureDisk, SOURCE.azureDisk),
  photonPersistentDisk: field(photonPersistentDisk, SOURCE.photonPersistentDisk),
  projected: field(
    struct(
      {
        sources: field(atomicList(volumeProjection), 'sources is the list of volume projections. Each entry in this list handles one source.'),
        defaultMode: field(integer(), DEFAULT_MODE),
      },
      { description: 'Represents a projected volume source' },
    ),
    'projected items for all in one resources secrets, configmaps, and downward API',
  ),
  portworxVolume: field(portworxVolume, SOURCE.portworxVolume),
  scaleIO: field(scaleIO(localObjectReferenceSchema), SOURCE.scaleIO),
  storageos: field(storageos(localObjectReferenceSchema), SOURCE.storageos),
  csi: field(
    struct(
      { ...CSI_COMMON, nodePublishSecretRef: field(localObjectReferenceSchema, csiSecret('nodePublishSecretRef')) },
      { required: ['driver'], description: 'Represents a source location of a volume to mount, managed by an external CSI driver' },
    ),
    'csi (Container Storage Interface) represents ephemeral storage that is handled by certain external CSI drivers.',
  ),
  ephemeral: field(
    struct(
      {
        volumeClaimTemplate: field(
          struct(
            {
              metadata: field(objectMetaSchema, 'May contain labels and annotations that will be copied into the PVC when creating it. No other fields are allowed.'),
              spec: field(persistentVolumeClaimSpecSchema, 'The specification for the PersistentVolumeClaim. The entire content is copied unchanged into the PVC that gets created from this template.'),
            },
            { required: ['spec'], description: 'PersistentVolumeClaimTemplate is used to produce PersistentVolumeClaim objects as part of an EphemeralVolumeSource.' },
          ),
          'Will be used to create a stand-alone PVC to provision the volume. The pod in which this EphemeralVolumeSource is embedded will be the owner of the PVC.',
        ),
      },
      { description: 'Represents an ephemeral volume that is handled by a normal storage driver.' },
    ),
    'ephemeral represents a volume that is handled by a cluster storage driver. The volume\'s lifecycle is tied to the pod that defines it - it will be created before the pod starts, and deleted when the pod is removed.',
  ),
  image: field(
    struct(
      {
        reference: field(string(), 'Required: Image or artifact reference to be used. Behaves in the same way as pod.spec.containers[*].image.'),
        pullPolicy: field(string(), 'Policy for pulling OCI objects. Possible values are: Always, Never, IfNotPresent. Defaults to Always if :latest tag is specified, or IfNotPresent otherwise.'),
      },
      { description: 'ImageVolumeSource represents a image volume resource.' },
    ),
    "image represents an OCI object (a container image or artifact) pulled and mounted on the kubelet's host machine.",
  ),
};

/** core/v1 PersistentVolumeSource. */
export const persistentVolumeSourceFields: Record<string, FieldDeclaration> = {
  gcePersistentDisk: field(gcePersistentDisk, SOURCE.gcePersistentDisk),
  awsElasticBlockStore: field(awsElasticBlockStore, SOURCE.awsElasticBlockStore),
  hostPath: field(hostPath, `${SOURCE.hostPath} Provisioned by a developer or tester; for single-node testing only.`),
  glusterfs: field(
    struct(
      { ...GLUSTERFS, endpointsNamespace: field(string(), 'endpointsNamespace is the namespace that contains Glusterfs endpoint. If this field is empty, the EndpointNamespace defaults to the same namespace as the bound PVC.') },
      { required: ['endpoints', 'path'], description: 'Represents a Glusterfs mount that lasts the lifetime of a pod.' },
    ),
    SOURCE.glusterfs,
  ),
  nfs: field(nfs, SOURCE.nfs),
  rbd: field(rbd(secretReferenceSchema), SOURCE.rbd),
  iscsi: field(iscsi(secretReferenceSchema), SOURCE.iscsi),
  cinder: field(cinder(secretReferenceSchema), SOURCE.cinder),
  cephfs: field(cephfs(secretReferenceSchema), SOURCE.cephfs),
  fc: field(fc, SOURCE.fc),
  flocker: field(flocker, SOURCE.flocker),
  flexVolume: field(flexVolume(secretReferenceSchema), SOURCE.flexVolume),
  azureFile: field(
    struct(
      { ...AZURE_FILE, secretNamespace: field(string(), 'secretNamespace is the namespace of the secret that contains Azure Storage Account Name and Key; default is the same as the Pod') },
      { required: ['secretName', 'shareName'], description: 'AzureFile represents an Azure File Service mount on the host and bind mount to the pod.' },
    ),
    SOURCE.azureFile,
  ),
  vsphereVolume: field(vsphereVolume, SOURCE.vsphereVolume),
  quobyte: field(quobyte, SOURCE.quobyte),
  azureDisk: field(azureDisk, SOURCE.azureDisk),
  photonPersistentDisk: field(photonPersistentDisk, SOURCE.photonPersistentDisk),
  portworxVolume: field(portworxVolume, SOURCE.portworxVolume),
  scaleIO: field(scaleIO(secretReferenceSchema), SOURCE.scaleIO),
  local: field(
    struct(
      {
        path: field(string(), 'path of the full path to the volume on the node. It can be either a directory or block device (disk, partition, ...).'),
        fsType: field(string(), 'fsType is the filesystem type to mount. It applies only when the Path is a block device. The default value is to auto-select a filesystem if unspecified.'),
      },
      { required: ['path'], description: 'Local represents directly-attached storage with node affinity' },
    ),
    'local represents directly-attached storage with node affinity',
  ),
  storageos: field(storageos(objectReferenceSchema), SOURCE.storageos),
  csi: field(
    struct(
      {
        ...CSI_COMMON,
        volumeHandle: field(string(), 'volumeHandle is the unique volume name returned by the CSI volume plugin\'s CreateVolume to refer to the volume on all subsequent calls. Required.'),
        controllerPublishSecretRef: field(secretReferenceSchema, csiSecret('controllerPublishSecretRef')),
        nodeStageSecretRef: field(secretReferenceSchema, csiSecret('nodeStageSecretRef')),
        nodePublishSecretRef: field(secretReferenceSchema, csiSecret('nodePublishSecretRef')),
        controllerExpandSecretRef: field(secretReferenceSchema, csiSecret('controllerExpandSecretRef')),
        nodeExpandSecretRef: field(secretReferenceSchema, csiSecret('nodeExpandSecretRef')),
      },
      { required: ['driver', 'volumeHandle'], description: 'Represents storage that is managed by an external CSI volume driver' },
    ),
    SOURCE.csi,
  ),
};

/** PersistentVolume spec.nodeAffinity. */
export const volumeNodeAffinitySchema = struct(
  { required: field(nodeSelectorSchema, 'required specifies hard node constraints that must be met.') },
  { description: 'VolumeNodeAffinity defines constraints that limit what nodes this volume can be accessed from.' },
);
