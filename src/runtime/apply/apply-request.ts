import { errors } from '../../apimachinery/errors';
import { SchemaKind } from '../schema/resource-type';
import { childSchema, Schema } from '../schema/schema';
import { docToValue, strictFieldError } from '../document/document';
import { FieldValidationDirective, strictWarnings } from '../schema/field-validation';
import { parseYamlDocument, YamlSyntaxError } from '../document/yaml-document';
import { TypedValueError, validateValue } from './typed-value';
import { isJsonObject } from './value';

/** An apply body made ready for the field manager. */
export interface ApplyConfiguration {
  config: Record<string, unknown>;
  /** Warning texts for unknown or duplicate fields (fieldValidation=Warn). */
  warnings: string[];
}

/** Go's schema.GroupVersionKind.String() of what the body names. */
function bodyGvk(config: Record<string, unknown>): string {
  const apiVersion = typeof config.apiVersion === 'string' ? config.apiVersion : '';
  const kind = typeof config.kind === 'string' ? config.kind : '';
  const parts = apiVersion ? apiVersion.split('/') : [];
  if (parts.length > 2) return '/, Kind=';
  const [group, version] = parts.length === 2 ? parts : ['', parts[0] ?? ''];
  return `${group}/${version}, Kind=${kind}`;
}

/** Unknown fields of a configuration, removed from it; their paths as kube's strict decoder names them. */
function pruneUnknownFields(value: unknown, schema: Schema, path: string, found: string[]): void {
  if (schema.kind === 'list' && Array.isArray(value)) {
    value.forEach((item, i) => pruneUnknownFields(item, schema.items, `${path}[${i}]`, found));
    return;
  }
  if ((schema.kind !== 'struct' && schema.kind !== 'map') || !isJsonObject(value)) return;
  for (const key of Object.keys(value)) {
    const child = childSchema(schema, key);
    const at = path ? `${path}.${key}` : key;
    if (!child) {
      found.push(strictFieldError('unknown', at));
      delete value[key];
    } else {
      pruneUnknownFields(value[key], child, at, found);
    }
  }
}

/**
 * Reads an apply body (YAML, of which JSON is a part) as kube does: it must be one object
 * of the path's kind and version, without managedFields, fitting the kind's schema.
 * Unknown and repeated fields follow the fieldValidation directive: Strict rejects them,
 * Warn reports them, and either way unknown fields are dropped.
 */
export function decodeApplyConfiguration(
  body: Buffer,
  type: SchemaKind,
  target: { namespace: string; name: string },
  directive: FieldValidationDirective = 'Warn',
): ApplyConfiguration {
  let parsed;
  try {
    parsed = parseYamlDocument(body.toString('utf8'));
  } catch (err) {
    if (err instanceof YamlSyntaxError) throw errors.badRequest(`error decoding YAML: ${err.message}`);
    throw err;
  }
  const value = docToValue(parsed.node);
  if (value !== null && !isJsonObject(value)) {
    const what = Array.isArray(value) ? 'array' : typeof value === 'string' ? 'string' : typeof value === 'boolean' ? 'bool' : 'number';
    throw errors.badRequest(
      `error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${what} into Go value of type map[string]interface {}`,
    );
  }
  const config = (value ?? {}) as Record<string, unknown>;
  const gvk = bodyGvk(config);
  const expected = `${type.group}/${type.version}, Kind=${type.kind}`;
  if (gvk !== expected) throw errors.badRequest(`invalid object type: ${gvk}`);
  if (isJsonObject(config.metadata) && Array.isArray(config.metadata.managedFields)) {
    throw errors.badRequest('metadata.managedFields must be nil');
  }

  const strictErrors: string[] = [];
  if (parsed.duplicateKeysError) strictErrors.push(parsed.duplicateKeysError);
  pruneUnknownFields(config, type.schema, '', strictErrors);
  if (strictErrors.length && directive === 'Strict') throw errors.badRequest(`error strict decoding YAML: ${strictErrors.join(', ')}`);

  try {
    validateValue(config, type.schema);
  } catch (err) {
    if (!(err instanceof TypedValueError)) throw err;
    throw errors.badRequest(`failed to create typed patch object (${target.namespace}/${target.name}; ${gvk}): ${err.message}`);
  }
  return { config, warnings: directive === 'Warn' ? strictWarnings(strictErrors) : [] };
}
