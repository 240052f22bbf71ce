import { ResourceStrategy } from '../../api/resource-type';
import { objectMetaSchema } from '../../api/schema/meta';
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

export const serviceAccountType = coreType<ServiceAccount>({
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  shortNames: ['sa'],
  namespaced: true,
  nameValidator: validateServiceAccountName,
  schema: serviceAccountSchema,
  strategy: serviceAccountStrategy,
});
