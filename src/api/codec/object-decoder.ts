import { decodeObjectBody } from './codecs';
import { parseMediaType } from './media-type';
import { errors } from '../../apimachinery/errors';
import { ResourceType } from '../schema/resource-type';
import { decodeCleanJson } from '../validation/clean-json-decoder';
import { DocNode, valueToDoc } from '../validation/document';
import { decodesStrictly, FieldValidationDirective, strictDecodingMessage, strictWarnings } from '../validation/field-validation';
import { JsonSyntaxError, parseJsonDocument } from '../validation/json-document';
import { decodeBySchema } from '../validation/schema-decoder';
import { parseYamlDocument, YamlSyntaxError } from '../validation/yaml-document';

/**
 * The body of a create or update decoded the way kube's create and update handlers decode
 * it: parse (JSON or YAML; other media types through the codecs), then decode into the
 * kind by its schema. Unknown and duplicate fields follow the fieldValidation directive;
 * every decode failure is a 400 worded as kube words it.
 */
export interface DecodedObject {
  object: Record<string, unknown>;
  /** Warning texts (fieldValidation=Warn): one per unknown or duplicate field. */
  warnings: string[];
}

const JSON_MEDIA = 'application/json';
const YAML_MEDIA = 'application/yaml';

/** The Go anonymous struct kube's version/kind sniffing decodes into. */
const TYPE_META_STRUCT = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** kube's summarizeData: the body's start, as text when it looks like JSON, else hex. */
export function summarizeBody(body: Buffer, maxLength = 30): string {
  if (body.length === 0) return '<empty>';
  const head = body.subarray(0, maxLength);
  const more = body.length > maxLength ? ' ...' : '';
  return body[0] === 0x7b ? head.toString('utf8') + more : head.toString('hex') + more;
}

function unrecognized(type: ResourceType, why: string, body: Buffer) {
  return errors.badRequest(`the object provided is unrecognized (must be of type ${type.kind}): ${why} (${summarizeBody(body)})`);
}

/** kube reads apiVersion and kind first; wrongly typed ones fail that step. */
function typeMetaError(node: DocNode): string | undefined {
  if (node.kind === 'null') return undefined;
  if (node.kind !== 'object') return `json: cannot unmarshal ${node.kind === 'bool' ? 'bool' : node.kind} into Go value of type ${TYPE_META_STRUCT}`;
  for (const { key, value } of node.entries) {
    if ((key === 'apiVersion' || key === 'kind') && value.kind !== 'string' && value.kind !== 'null') {
      return `json: cannot unmarshal ${value.kind === 'bool' ? 'bool' : value.kind} into Go struct field .${key} of type string`;
    }
  }
  return undefined;
}

function stringField(node: DocNode, key: string): string | undefined {
  if (node.kind !== 'object') return undefined;
  let found: string | undefined;
  for (const entry of node.entries) if (entry.key === key && entry.value.kind === 'string') found = entry.value.value;
  return found || undefined;
}

interface ParsedBody {
  node: DocNode;
  strictErrors: string[];
}

function parseBody(contentType: string | undefined, body: Buffer, type: ResourceType, strict: boolean): ParsedBody {
  const mediaType = parseMediaType(contentType ?? '').type;
  const text = body.toString('utf8');
  if (mediaType === JSON_MEDIA) {
    try {
      const node = parseJsonDocument(text);
      const metaError = typeMetaError(node);
      if (metaError) throw unrecognized(type, `couldn't get version/kind; json parse error: ${metaError}`, body);
      return { node, strictErrors: [] };
    } catch (err) {
      if (err instanceof JsonSyntaxError) throw unrecognized(type, `couldn't get version/kind; json parse error: ${err.message}`, body);
      throw err;
    }
  }
  if (mediaType === YAML_MEDIA) {
    try {
      const { node, duplicateKeysError } = parseYamlDocument(text);
      const metaError = typeMetaError(node);
      if (metaError) throw unrecognized(type, `couldn't get version/kind; json parse error: ${metaError}`, body);
      return { node, strictErrors: strict && duplicateKeysError ? [duplicateKeysError] : [] };
    } catch (err) {
      if (err instanceof YamlSyntaxError) throw unrecognized(type, err.message, body);
      throw err;
    }
  }
  // Other media types (protobuf) and the 415 for unknown ones are the codecs' business.
  return { node: valueToDoc(decodeObjectBody(contentType, body, type)), strictErrors: [] };
}

/** Decodes a create/update body into the kind (see the module comment). */
export function decodeObjectRequest(
  contentType: string | undefined,
  rawBody: Buffer | undefined,
  type: ResourceType,
  directive: FieldValidationDirective,
): DecodedObject {
  const body = rawBody ?? Buffer.alloc(0);
  if (parseMediaType(contentType ?? '').type === JSON_MEDIA) {
    const clean = decodeCleanJson(body.toString('utf8'), type.schema);
    if (clean) return { object: clean, warnings: [] };
  }
  const strict = decodesStrictly(directive);
  const parsed = parseBody(contentType, body, type, strict);
  // Errors name the kind and version the body claims, defaulted from the URL.
  const bodyKind = stringField(parsed.node, 'kind') ?? type.kind;
  const bodyVersion = stringField(parsed.node, 'apiVersion')?.split('/').pop() ?? type.version;
  const cannotHandle = (why: string) => errors.badRequest(`${bodyKind} in version "${bodyVersion}" cannot be handled as a ${type.kind}: ${why}`);

  const result = decodeBySchema(parsed.node, type.schema, { strict, dialect: 'json', rootTypeName: `${type.version}.${type.kind}` });
  if (result.typeError) throw cannotHandle(result.typeError);
  const strictErrors = [...parsed.strictErrors, ...result.strictErrors];
  if (strictErrors.length && directive === 'Strict') throw cannotHandle(strictDecodingMessage(strictErrors));
  return { object: result.value, warnings: directive === 'Warn' ? strictWarnings(strictErrors) : [] };
}
