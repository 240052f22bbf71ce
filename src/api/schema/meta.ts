import {
  any,
  atomicList,
  atomicStruct,
  boolean,
  dateTime,
  int64,
  mapList,
  named,
  setList,
  string,
  stringMap,
  struct,
  StructSchema,
} from './schema';

/** Schemas of the apimachinery types every kind shares (meta/v1), with kube's markers. */

export const managedFieldsEntrySchema = struct(
  {
    manager: string(),
    operation: named(string(), 'v1.ManagedFieldsOperationType'),
    apiVersion: string(),
    time: dateTime(),
    fieldsType: string(),
    fieldsV1: any(),
    subresource: string(),
  },
  { typeName: 'v1.ManagedFieldsEntry' },
);

export const ownerReferenceSchema = atomicStruct(
  {
    apiVersion: string(),
    kind: string(),
    name: string(),
    uid: named(string(), 'types.UID'),
    controller: boolean(),
    blockOwnerDeletion: boolean(),
  },
  { required: ['apiVersion', 'kind', 'name', 'uid'], typeName: 'v1.OwnerReference' },
);

export const objectMetaSchema: StructSchema = struct(
  {
    name: string(),
    generateName: string(),
    namespace: string(),
    selfLink: string(),
    uid: named(string(), 'types.UID'),
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
  },
  { typeName: 'v1.ObjectMeta' },
);

export const labelSelectorRequirementSchema = struct(
  { key: string(), operator: named(string(), 'v1.LabelSelectorOperator'), values: atomicList(string()) },
  { required: ['key', 'operator'], typeName: 'v1.LabelSelectorRequirement' },
);

/** meta/v1 LabelSelector is `+structType=atomic`: owned and replaced as a whole. */
export const labelSelectorSchema = atomicStruct(
  {
    matchLabels: stringMap(),
    matchExpressions: atomicList(labelSelectorRequirementSchema),
  },
  { typeName: 'v1.LabelSelector' },
);

export const listMetaSchema = struct(
  {
    selfLink: string(),
    resourceVersion: string(),
    continue: string(),
    remainingItemCount: int64(),
  },
  { typeName: 'v1.ListMeta' },
);
