import { ResourceStrategy } from '../../api/resource-type';
import { objectMetaSchema } from '../../api/schema/meta';
import { ageColumn, entryCount, nameColumn } from '../../api/table/columns';
import { TableDefinition } from '../../api/table/table';
import { atomicList, boolean, kindSchema, mapList } from '../../api/schema/schema';
import { KubeObject } from '../../api/types';
import { validateServiceAccountName } from '../../api/validation/names';
import { localObjectReferenceSchema, objectReferenceSchema } from './common-schemas';
import { coreType } from './core-type';

/** The core ServiceAccount kind (v1): only its metadata is validated, as in kube. */

export interface ServiceAccount extends KubeObject {
  secrets?: Array<Record<string, unknown>>;
  imagePullSecrets?: Array<{ name?: string }>;
  automountServiceAccountToken?: boolean;
}

export const serviceAccountSchema = kindSchema(objectMetaSchema, {
  secrets: mapList(objectReferenceSchema, ['name'], { patchStrategy: 'merge', patchMergeKey: 'name' }),
  imagePullSecrets: atomicList(localObjectReferenceSchema),
  automountServiceAccountToken: boolean(),
});

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
