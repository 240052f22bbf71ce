import { FieldError, fieldErrors, FieldPath } from '../../apimachinery/field-errors';
import { ResourceStrategy } from '../../runtime/schema/resource-type';
import { objectMetaSchema } from '../../runtime/schema/meta';
import { ageColumn, entryCount, nameColumn } from '../../runtime/table/columns';
import { TableDefinition } from '../../runtime/table/table';
import { boolean, field, kindSchema, map, string } from '../../runtime/schema/schema';
import { isPlainObject, KubeObject, setOwn } from '../../apimachinery/types';
import { nameIsDNSSubdomain } from '../../apimachinery/validation/names';
import { validateImmutableField } from '../../apimachinery/validation/object-meta';
import { record, str } from '../../apimachinery/validation/shape';
import { base64ErrorOffset } from './base64';
import { coreType } from './core-type';
import { SECRET_TYPE_BOOTSTRAP_TOKEN, validateBootstrapTokenSecret } from './bootstrap-token';
import { decodeError, isConfigMapKey, validateFrozenPayload } from './core-validation';

/**
 * The core Secret kind (v1). Built-in secret types carry this project's domain in place of
 * kube's (`platform.io/tls` for `kubernetes.io/tls`, and so on).
 */

export interface Secret extends KubeObject {
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  type?: string;
  immutable?: boolean;
}

/** kube's MaxSecretSize, also the ConfigMap limit. */
export const MAX_SECRET_SIZE = 1024 * 1024;

export const SECRET_TYPE_OPAQUE = 'Opaque';
export const SECRET_TYPE_SERVICE_ACCOUNT_TOKEN = 'platform.io/service-account-token';
export const SECRET_TYPE_DOCKERCFG = 'platform.io/dockercfg';
export const SECRET_TYPE_DOCKER_CONFIG_JSON = 'platform.io/dockerconfigjson';
export const SECRET_TYPE_BASIC_AUTH = 'platform.io/basic-auth';
export const SECRET_TYPE_SSH_AUTH = 'platform.io/ssh-auth';
export const SECRET_TYPE_TLS = 'platform.io/tls';
export const SERVICE_ACCOUNT_NAME_ANNOTATION = 'platform.io/service-account.name';

export const secretSchema = kindSchema(
  objectMetaSchema,
  {
    data: field(
      map(string('byte')),
      "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here.",
    ),
    stringData: field(
      map(string()),
      'stringData allows specifying non-binary secret data in string form. It is provided as a write-only input field for convenience. All keys and values are merged into the data field on write, overwriting any existing values. The stringData field is never output when reading from the API.',
    ),
    type: field(string(), 'Used to facilitate programmatic handling of secret data (Opaque, platform.io/tls, platform.io/service-account-token, ...). Defaults to Opaque.'),
    immutable: field(
      boolean(),
      'Immutable, if set to true, ensures that data stored in the Secret cannot be updated (only object metadata can be modified). If not set to true, the field can be modified at any time. Defaulted to nil.',
    ),
  },
  { description: 'Secret holds secret data of a certain type. The total bytes of the values in the Data field must be less than MaxSecretSize bytes.' },
);

/** Secret data values are base64 (Go []byte); text that does not decode is a 400 as in kube. */
export function assertBase64Values(kind: string, values: unknown): void {
  if (!isPlainObject(values)) return;
  for (const value of Object.values(values)) {
    if (typeof value !== 'string') continue;
    const offset = base64ErrorOffset(value);
    if (offset >= 0) throw decodeError(kind, `illegal base64 data at input byte ${offset}`);
  }
}

/** kube's v1 conversion folds stringData into data (stringData wins) and never stores stringData. */
function foldStringData(secret: Secret): void {
  if (isPlainObject(secret.stringData)) {
    const data = isPlainObject(secret.data) ? secret.data : {};
    for (const [key, value] of Object.entries(secret.stringData)) {
      if (typeof value === 'string') setOwn(data, key, Buffer.from(value, 'utf8').toString('base64'));
    }
    secret.data = data;
  }
  delete secret.stringData;
}

function decodedLength(value: string): number {
  return Buffer.from(value, 'base64').length;
}

const dataPath = FieldPath.root('data');

function requireKey(data: Record<string, string>, key: string): FieldError[] {
  return Object.hasOwn(data, key) ? [] : [fieldErrors.required(dataPath.key(key), '')];
}

function jsonContentError(data: Record<string, string>, key: string): FieldError[] {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(data[key], 'base64').toString('utf8'));
    if (isPlainObject(parsed)) return [];
    return [fieldErrors.invalid(dataPath.key(key), '<secret contents redacted>', 'json: cannot unmarshal into Go value of type map[string]interface {}')];
  } catch (err) {
    return [fieldErrors.invalid(dataPath.key(key), '<secret contents redacted>', (err as Error).message)];
  }
}

/** What each built-in type requires of data and annotations (kube's ValidateSecret switch). */
function validateSecretType(secret: Secret, data: Record<string, string>): FieldError[] {
  switch (str(secret.type)) {
    case SECRET_TYPE_SERVICE_ACCOUNT_TOKEN:
      return secret.metadata.annotations?.[SERVICE_ACCOUNT_NAME_ANNOTATION]
        ? []
        : [fieldErrors.required(FieldPath.root('metadata').child('annotations').key(SERVICE_ACCOUNT_NAME_ANNOTATION), '')];
    case SECRET_TYPE_DOCKERCFG:
      return requireKey(data, '.dockercfg').length ? requireKey(data, '.dockercfg') : jsonContentError(data, '.dockercfg');
    case SECRET_TYPE_DOCKER_CONFIG_JSON:
      return requireKey(data, '.dockerconfigjson').length ? requireKey(data, '.dockerconfigjson') : jsonContentError(data, '.dockerconfigjson');
    case SECRET_TYPE_BASIC_AUTH:
      // Either may be empty, but one of the two keys must be there.
      return Object.hasOwn(data, 'username') || Object.hasOwn(data, 'password') ? [] : [...requireKey(data, 'username'), ...requireKey(data, 'password')];
    case SECRET_TYPE_SSH_AUTH:
      return data['ssh-privatekey'] ? [] : [fieldErrors.required(dataPath.key('ssh-privatekey'), '')];
    case SECRET_TYPE_TLS:
      return [...requireKey(data, 'tls.crt'), ...requireKey(data, 'tls.key')];
    case SECRET_TYPE_BOOTSTRAP_TOKEN:
      return validateBootstrapTokenSecret(secret.metadata.name ?? '', data);
    default:
      return [];
  }
}

export function validateSecret(secret: Secret): FieldError[] {
  const data = Object.fromEntries(Object.entries(record(secret.data)).map(([k, v]) => [k, str(v)]));
  const errs: FieldError[] = [];
  let total = 0;
  for (const [key, value] of Object.entries(data)) {
    errs.push(...isConfigMapKey(key).map((msg) => fieldErrors.invalid(dataPath.key(key), key, msg)));
    total += decodedLength(value);
  }
  if (total > MAX_SECRET_SIZE) errs.push(fieldErrors.tooLong(dataPath, '', MAX_SECRET_SIZE));
  errs.push(...validateSecretType(secret, data));
  return errs;
}

export function validateSecretUpdate(secret: Secret, old: Secret): FieldError[] {
  return [
    ...validateImmutableField(str(secret.type), str(old.type), FieldPath.root('type')),
    ...validateFrozenPayload(secret, old, ['data']),
    ...validateSecret(secret),
  ];
}

function prepare(secret: Secret): void {
  assertBase64Values('Secret', secret.data);
  foldStringData(secret);
  if (!secret.type) secret.type = SECRET_TYPE_OPAQUE;
}

export const secretStrategy: ResourceStrategy<Secret> = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForCreate: prepare,
  prepareForUpdate: prepare,
  validate: (secret) => validateSecret(secret),
  validateUpdate: (secret, old) => validateSecretUpdate(secret, old),
};

/** kube's Secret printer: NAME, TYPE, DATA (the number of keys), AGE. */
export const secretTable: TableDefinition<Secret> = {
  columns: [
    nameColumn,
    { name: 'Type', type: 'string', description: 'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types', cell: (s) => str(s.type) },
    {
      name: 'Data',
      type: 'string',
      description:
        "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
      cell: (s) => entryCount(s.data),
    },
    ageColumn,
  ],
};

export const secretType = coreType<Secret>({
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  schema: secretSchema,
  strategy: secretStrategy,
  selectableFields: [{ name: 'type', value: (secret: Secret) => str(secret.type) }],
  table: secretTable,
});
