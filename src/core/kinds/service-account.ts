import { ResourceStrategy } from '../../runtime/schema/resource-type';
import { objectMetaSchema } from '../../runtime/schema/meta';
import { ageColumn, entryCount, nameColumn } from '../../runtime/table/columns';
import { TableDefinition } from '../../runtime/table/table';
import { atomicList, boolean, field, kindSchema, mapList } from '../../runtime/schema/schema';
import { KubeObject } from '../../apimachinery/types';
import { validateServiceAccountName } from '../../apimachinery/validation/names';
import { localObjectReferenceSchema, objectReferenceSchema } from './common-schemas';
import { coreType } from './core-type';

/** The core ServiceAccount kind (v1): only its metadata is validated, as in kube. */

export interface ServiceAccount extends KubeObject {
  secrets?: Array<Record<string, unknown>>;
  imagePullSecrets?: Array<{ name?: string }>;
  automountServiceAccountToken?: boolean;
}

export const serviceAccountSchema = kindSchema(
  objectMetaSchema,
  {
    secrets: field(
      mapList(objectReferenceSchema, ['name'], { patchStrategy: 'merge', patchMergeKey: 'name' }),
      'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Deprecated: not meant for auto-generated service account token secrets.',
    ),
    imagePullSecrets: field(
      atomicList(localObjectReferenceSchema),
      'ImagePullSecrets is a list of references to secrets in the same namespace to use for pulling any images in pods that reference this ServiceAccount. ImagePullSecrets are distinct from Secrets because Secrets can be mounted in the pod, but ImagePullSecrets are only accessed by the kubelet.',
    ),
    automountServiceAccountToken: field(
      boolean(),
      'AutomountServiceAccountToken indicates whether pods running as this service account should have an API token automatically mounted. Can be overridden at the pod level.',
    ),
  },
  { description: 'ServiceAccount binds together: a name, understood by users, and perhaps by peripheral systems, for an identity; a principal that can be authenticated and authorized; a set of secrets.' },
);

export const serviceAccountStrategy: ResourceStrategy<ServiceAccount> = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  validate: () => [],
  validateUpdate: () => [],
};

/** kube's ServiceAccount printer: NAME, SECRETS (how many it lists), AGE. */
export const serviceAccountTable: TableDefinition<ServiceAccount> = {
  columns: [
    nameColumn,
    {
      name: 'Secrets',
      type: 'string',
      description:
        'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret',
      cell: (sa) => entryCount(sa.secrets),
    },
    ageColumn,
  ],
};

export const serviceAccountType = coreType<ServiceAccount>({
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  shortNames: ['sa'],
  namespaced: true,
  nameValidator: validateServiceAccountName,
  schema: serviceAccountSchema,
  strategy: serviceAccountStrategy,
  table: serviceAccountTable,
});
