import { FieldError, fieldErrors, FieldPath } from '../../apimachinery/field-errors';
import { ResourceStrategy } from '../../runtime/schema/resource-type';
import { objectMetaSchema } from '../../runtime/schema/meta';
import { ageColumn, entryCount, nameColumn } from '../../runtime/table/columns';
import { TableDefinition } from '../../runtime/table/table';
import { boolean, field, kindSchema, map, string } from '../../runtime/schema/schema';
import { KubeObject } from '../../apimachinery/types';
import { byteLength, nameIsDNSSubdomain } from '../../apimachinery/validation/names';
import { record, str } from '../../apimachinery/validation/shape';
import { coreType } from './core-type';
import { isConfigMapKey, validateFrozenPayload } from './core-validation';
import { assertBase64Values, MAX_SECRET_SIZE } from './secret';

/** The core ConfigMap kind (v1). */

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
  immutable?: boolean;
}

export const configMapSchema = kindSchema(
  objectMetaSchema,
  {
    data: field(
      map(string()),
      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field.",
    ),
    binaryData: field(
      map(string('byte')),
      "BinaryData contains the binary data. Each key must consist of alphanumeric characters, '-', '_' or '.'. BinaryData can contain byte sequences that are not in the UTF-8 range. The keys stored in BinaryData must not overlap with the ones in the Data field.",
    ),
    immutable: field(
      boolean(),
      'Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated (only object metadata can be modified). If not set to true, the field can be modified at any time. Defaulted to nil.',
    ),
  },
  { description: 'ConfigMap holds configuration data for pods to consume.' },
);

/** kube's ValidateConfigMap: valid keys, no key in both maps, at most 1 MiB in all. */
export function validateConfigMap(cm: ConfigMap): FieldError[] {
  const errs: FieldError[] = [];
  const data = record(cm.data);
  const binary = record(cm.binaryData);
  let total = 0;
  // Keys, not entries: the pairs of a 60,000-key map cost more than checking them.
  for (const key of Object.keys(data)) {
    const problems = isConfigMapKey(key);
    const duplicate = Object.hasOwn(binary, key);
    if (problems.length || duplicate) {
      const path = FieldPath.root('data').key(key);
      for (const msg of problems) errs.push(fieldErrors.invalid(path, key, msg));
      if (duplicate) errs.push(fieldErrors.invalid(path, key, 'duplicate of key present in binaryData'));
    }
    total += byteLength(str(data[key]));
  }
  for (const [key, value] of Object.entries(binary)) {
    errs.push(...isConfigMapKey(key).map((msg) => fieldErrors.invalid(FieldPath.root('binaryData').key(key), key, msg)));
    total += Buffer.from(str(value), 'base64').length;
  }
  if (total > MAX_SECRET_SIZE) errs.push(fieldErrors.tooLong(FieldPath.root(''), '', MAX_SECRET_SIZE));
  return errs;
}

export function validateConfigMapUpdate(cm: ConfigMap, old: ConfigMap): FieldError[] {
  return [...validateFrozenPayload(cm, old, ['data', 'binaryData']), ...validateConfigMap(cm)];
}

export const configMapStrategy: ResourceStrategy<ConfigMap> = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForCreate: (cm) => assertBase64Values('ConfigMap', cm.binaryData),
  prepareForUpdate: (cm) => assertBase64Values('ConfigMap', cm.binaryData),
  validate: (cm) => validateConfigMap(cm),
  validateUpdate: (cm, old) => validateConfigMapUpdate(cm, old),
};

/** kube's ConfigMap printer: NAME, DATA (keys of data and binaryData), AGE. */
export const configMapTable: TableDefinition<ConfigMap> = {
  columns: [
    nameColumn,
    {
      name: 'Data',
      type: 'string',
      description:
        "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
      cell: (cm) => entryCount(cm.data) + entryCount(cm.binaryData),
    },
    ageColumn,
  ],
};

export const configMapType = coreType<ConfigMap>({
  kind: 'ConfigMap',
  plural: 'configmaps',
  shortNames: ['cm'],
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  schema: configMapSchema,
  strategy: configMapStrategy,
  table: configMapTable,
});
