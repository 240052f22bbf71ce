import { errors, StatusError } from '../../apimachinery/errors';
import { fieldErrorBody, fieldErrors } from '../../apimachinery/field-errors';
import { deepClone } from '../../apimachinery/system-metadata';
import { SchemaKind } from '../schema/resource-type';
import { DocNode, docToValue, docTypeName, duplicateFields, float64OverflowError, overflowingNumber, valueToDoc } from '../document/document';
import { decodesStrictly, FieldValidationDirective, strictDecodingMessage, strictWarnings } from '../schema/field-validation';
import { goValue, sortedJson } from '../../apimachinery/go-text';
import { JsonSyntaxError, parseJsonDocument } from '../document/json-document';
import { decodeBySchema, DecodeDialect } from '../schema/schema-decoder';
import { applyJsonPatch, JsonPatchApplyError, JsonPatchDepthError } from './json-patch';
import { jsonDepthError } from '../document/nesting';
import { mergePatch } from './merge-patch';
import { PatchType } from './patch-types';
import { strategicMergePatch, StrategicMergePatchError } from './strategic-merge-patch';

/**
 * A JSON, merge or strategic merge patch applied to the stored object the way kube's patch
 * handler does it: the patch document is read once (invalid JSON is 400), applied to the
 * current object, and the result decoded into the kind by its schema. Decoding the result
 * finds wrong types and unknown fields; repeated keys are looked for in the patch itself.
 * With fieldValidation=Strict those are 422 Invalid on the field `patch`; with Warn they
 * become warnings. Server-side apply is not handled here.
 */
export interface ParsedPatch {
  type: Exclude<PatchType, 'apply'>;
  document: DocNode;
}

export interface PatchOutcome {
  object: Record<string, unknown>;
  warnings: string[];
}

/** kube's cap on the operations of one JSON patch. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

/** Reads a patch body; it must be valid JSON (checked before the object is read). */
export function parsePatch(type: ParsedPatch['type'], body: Buffer | undefined): ParsedPatch {
  try {
    return { type, document: parseJsonDocument((body ?? Buffer.alloc(0)).toString('utf8')) };
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw errors.badRequest('invalid JSON patch');
    throw err;
  }
}

/**
 * kube's NewGenericServerResponse(422, ..., isUnexpectedResponse=false): a fixed message and
 * empty details; the patch library's own words are not passed on (kube drops them too).
 */
function unprocessable(): StatusError {
  return new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
}

/** kube's NewInvalid(GroupKind{}, "", [Invalid(patch, value, detail)]). */
function invalidPatch(value: string, detail: string): StatusError {
  const fieldError = fieldErrors.invalid('patch', value, detail);
  return new StatusError(422, 'Invalid', ` "" is invalid: patch: ${fieldErrorBody(fieldError)}`, {
    causes: [{ reason: fieldError.type, message: fieldErrorBody(fieldError), field: 'patch' }],
  });
}

function goTypeOfDoc(node: DocNode): string {
  return node.kind === 'bool' ? 'bool' : docTypeName(node);
}

/** The patch's own strict errors and the result to decode, per patch type. */
interface Applied {
  result: unknown;
  patchStrictErrors: string[];
  /** How kube prints the patch or the patched object in a 422 (`patch: Invalid value: ...`). */
  shown: () => string;
  dialect: DecodeDialect;
}

const JSON_PATCH_OP_FIELDS = new Set(['op', 'path', 'from', 'value']);

/** kube decodes a JSON patch strictly into []jsonPatchOp{op, path, from, value} first. */
function jsonPatchStrictErrors(doc: DocNode): string[] {
  if (doc.kind !== 'array') throw errors.badRequest(`error decoding patch: json: cannot unmarshal ${goTypeOfDoc(doc)} into Go value of type []handlers.jsonPatchOp`);
  const found: string[] = [];
  doc.items.forEach((item, i) => {
    if (item.kind === 'null') return;
    if (item.kind !== 'object') {
      throw errors.badRequest(`error decoding patch: json: cannot unmarshal ${goTypeOfDoc(item)} into Go value of type handlers.jsonPatchOp`);
    }
    const seen = new Set<string>();
    for (const { key, value } of item.entries) {
      const path = `[${i}].${key}`;
      if (!JSON_PATCH_OP_FIELDS.has(key)) {
        found.push(`json patch unknown field "${path}"`);
        continue;
      }
      if (seen.has(key)) found.push(`json patch duplicate field "${path}"`);
      seen.add(key);
      if (key === 'value') found.push(...duplicateFields(value, path).map((e) => `json patch ${e}`));
      else if (value.kind !== 'string' && value.kind !== 'null') {
        throw errors.badRequest(
          `error decoding patch: json: cannot unmarshal ${goTypeOfDoc(value)} into Go struct field jsonPatchOp.${key} of type string`,
        );
      }
    }
  });
  return found;
}

/** kube decodes JSON and merge patches into Go values first (strictly, by default): a float64 overflow is 400. */
function checkNumbers(doc: DocNode, prefix: string): void {
  const literal = overflowingNumber(doc);
  if (literal !== undefined) throw errors.badRequest(`${prefix}${float64OverflowError(literal)}`);
}

function applyJson(current: Record<string, unknown>, patch: ParsedPatch, strict: boolean): Applied {
  const patchStrictErrors = strict ? jsonPatchStrictErrors(patch.document) : [];
  const doc = patch.document;
  checkNumbers(doc, 'error decoding patch: ');
  if (doc.kind !== 'array') throw errors.badRequest(`json: cannot unmarshal ${goTypeOfDoc(doc)} into Go value of type jsonpatch.Patch`);
  const operations = doc.items.map((item) => {
    if (item.kind !== 'object' && item.kind !== 'null') {
      throw errors.badRequest(`json: cannot unmarshal ${goTypeOfDoc(item)} into Go value of type jsonpatch.Operation`);
    }
    return (docToValue(item) ?? {}) as Record<string, unknown>;
  });
  if (operations.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new StatusError(
      413,
      'RequestEntityTooLarge',
      `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${operations.length}`,
    );
  }
  let result: unknown;
  try {
    result = applyJsonPatch(current, operations);
  } catch (err) {
    if (err instanceof JsonPatchApplyError) throw unprocessable();
    // kube's decoding of the patched object stops at the nesting limit.
    if (err instanceof JsonPatchDepthError) {
      throw invalidPatch(sortedJson(err.document), `couldn't get version/kind; json parse error: ${jsonDepthError(err.bracket)}`);
    }
    throw err;
  }
  return { result, patchStrictErrors, shown: () => sortedJson(result), dialect: 'json' };
}

function applyMerge(current: Record<string, unknown>, patch: ParsedPatch, strict: boolean): Applied {
  const doc = patch.document;
  if (strict && doc.kind !== 'object') {
    throw errors.badRequest(`error decoding patch: json: cannot unmarshal ${goTypeOfDoc(doc)} into Go value of type map[string]interface {}`);
  }
  // evanphx/json-patch accepts an object or a list; anything else is not a merge patch.
  if (doc.kind !== 'object' && doc.kind !== 'array') throw errors.badRequest('Invalid JSON Patch');
  checkNumbers(doc, 'error decoding patch: ');
  const result = mergePatch(current, docToValue(doc));
  return { result, patchStrictErrors: strict ? duplicateFields(doc) : [], shown: () => sortedJson(result), dialect: 'json' };
}

function applyStrategic(type: SchemaKind, current: Record<string, unknown>, patch: ParsedPatch, strict: boolean): Applied {
  const doc = patch.document;
  if (doc.kind !== 'object' && doc.kind !== 'null') {
    throw errors.badRequest(`json: cannot unmarshal ${goTypeOfDoc(doc)} into Go value of type map[string]interface {}`);
  }
  checkNumbers(doc, '');
  const patchMap = (docToValue(doc) ?? {}) as Record<string, unknown>;
  let result: Record<string, unknown>;
  try {
    result = strategicMergePatch(deepClone(current), patchMap, type.schema);
  } catch (err) {
    if (!(err instanceof StrategicMergePatchError)) throw err;
    // kube answers the unclassified ones with a 500; they are bad input, so 400 here.
    if (err.category === 'Invalid') throw unprocessable();
    throw errors.badRequest(err.message);
  }
  // kube prints the patch as Go's %+v after the merge consumed its directives.
  return { result, patchStrictErrors: strict ? duplicateFields(doc) : [], shown: () => goValue(patchMap), dialect: 'unstructured' };
}

/** Applies a parsed patch to the current object and decodes the result (see the module comment). */
export function applyPatch(
  type: SchemaKind,
  current: Record<string, unknown>,
  patch: ParsedPatch,
  directive: FieldValidationDirective,
): PatchOutcome {
  const strict = decodesStrictly(directive);
  const applied =
    patch.type === 'json'
      ? applyJson(current, patch, strict)
      : patch.type === 'merge'
        ? applyMerge(current, patch, strict)
        : applyStrategic(type, current, patch, strict);

  const decoded = decodeBySchema(valueToDoc(applied.result), type.schema, {
    strict,
    dialect: applied.dialect,
    rootTypeName: `${type.version}.${type.kind}`,
  });
  if (decoded.typeError) throw invalidPatch(applied.shown(), decoded.typeError);
  const strictErrors = [...applied.patchStrictErrors, ...decoded.strictErrors];
  if (strictErrors.length && directive === 'Strict') throw invalidPatch(applied.shown(), strictDecodingMessage(strictErrors));
  return { object: decoded.value, warnings: directive === 'Warn' ? strictWarnings(strictErrors) : [] };
}
