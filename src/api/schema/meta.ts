import {
  any,
  atomicList,
  atomicStruct,
  boolean,
  dateTime,
  int64,
  mapList,
  setList,
  string,
  stringMap,
  struct,
  StructSchema,
} from './schema';

/** Schemas of the apimachinery types every kind shares (meta/v1), with kube's markers. */

export const managedFieldsEntrySchema = struct({
  manager: string(),
  operation: string(),
  apiVersion: string(),
  time: dateTime(),
  fieldsType: string(),
  fieldsV1: any(),
  subresource: string(),
});

export const ownerReferenceSchema = atomicStruct(
  {
    apiVersion: string(),
    kind: string(),
    name: string(),
    uid: string(),
    controller: boolean(),
    blockOwnerDeletion: boolean(),
  },
  { required: ['apiVersion', 'kind', 'name', 'uid'] },
);

export const objectMetaSchema: StructSchema = struct({
  name: string(),
  generateName: string(),
  namespace: string(),
  selfLink: string(),
  uid: string(),
  resourceVersion: string(),
  generation: int64(),
  creationTimestamp: dateTime(),
  deletionTimestamp: dateTime(),
  deletionGracePeriodSeconds: int64(),
  labels: stringMap(),
  annotations: stringMap(),
  ownerReferences: mapList(ownerReferenceSchema, ['uid'], { patchStrategy: 'merge', patchMergeKey: 'uid' }),
  finalizers: setList(string(), { patchStrategy: 'merge' }),
  managedFields: atomicList(managedFieldsEntrySchema),
});

export const labelSelectorRequirementSchema = struct(
  { key: string(), operator: string(), values: atomicList(string()) },
  { required: ['key', 'operator'] },
);

/** meta/v1 LabelSelector is `+structType=atomic`: owned and replaced as a whole. */
export const labelSelectorSchema = atomicStruct({
  matchLabels: stringMap(),
  matchExpressions: atomicList(labelSelectorRequirementSchema),
});

export const listMetaSchema = struct({
  selfLink: string(),
  resourceVersion: string(),
  continue: string(),
  remainingItemCount: int64(),
});
