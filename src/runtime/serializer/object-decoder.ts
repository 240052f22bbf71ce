import { decodeObjectBody } from './codecs';
import { parseMediaType } from './media-type';
import { errors } from '../../apimachinery/errors';
import { ResourceType, SchemaKind } from '../schema/resource-type';
import { decodeCleanJson } from '../schema/clean-json-decoder';
import { DocNode, valueToDoc } from '../document/document';
import { decodesStrictly, FieldValidationDirective, strictDecodingMessage, strictWarnings } from '../schema/field-validation';
import { JsonSyntaxError, parseJsonDocument } from '../document/json-document';
import { decodeBySchema } from '../schema/schema-decoder';
import { parseYamlDocument, YamlSyntaxError } from '../document/yaml-document';

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

function unrecognized(type: SchemaKind, why: string, body: Buffer) {
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

/** The media types whose bodies are text parsed here (the others are the codecs' business). */
export type TextMediaType = typeof JSON_MEDIA | typeof YAML_MEDIA;

/** The body's media type when it is JSON or YAML text. */
export function textMediaTypeOf(contentType: string | undefined): TextMediaType | undefined {
  const mediaType = parseMediaType(contentType ?? '').type;
  return mediaType === JSON_MEDIA || mediaType === YAML_MEDIA ? mediaType : undefined;
}

function parseText(mediaType: TextMediaType, body: Buffer, type: SchemaKind, strict: boolean): ParsedBody {
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

/** Decodes a create/update body into the kind (see the module comment). */
export function decodeObjectRequest(
  contentType: string | undefined,
  rawBody: Buffer | undefined,
  type: ResourceType,
  directive: FieldValidationDirective,
): DecodedObject {
  const body = rawBody ?? Buffer.alloc(0);
  const mediaType = textMediaTypeOf(contentType);
  if (mediaType) return decodeTextObject(mediaType, body, type, directive);
  // Other media types (protobuf) and the 415 for unknown ones are the codecs' business.
  const parsed = { node: valueToDoc(decodeObjectBody(contentType, body, type)), strictErrors: [] };
  return decodeParsed(parsed, type, directive);
}

/**
 * A JSON or YAML create/update body decoded into the kind. It reads only the kind's identity
 * and schema, so a codec thread runs it for large bodies (src/runtime/offload).
 */
export function decodeTextObject(mediaType: TextMediaType, body: Buffer, type: SchemaKind, directive: FieldValidationDirective): DecodedObject {
  if (mediaType === JSON_MEDIA) {
    const clean = decodeCleanJson(body.toString('utf8'), type.schema);
    if (clean) return { object: clean, warnings: [] };
  }
  return decodeParsed(parseText(mediaType, body, type, decodesStrictly(directive)), type, directive);
}

function decodeParsed(parsed: ParsedBody, type: SchemaKind, directive: FieldValidationDirective): DecodedObject {
  const strict = decodesStrictly(directive);
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
