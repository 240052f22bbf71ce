import { applyPatch, JsonPatchError, Operation, validate } from 'fast-json-patch';
import { parseMediaType } from '../codec/media-type';
import { parseJson } from '../codec/codecs';
import { errors, StatusError } from '../errors';
import { isPlainObject } from '../types';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';

/** Patch media types this server applies. */
export const PATCH_MEDIA_TYPES = [JSON_PATCH, MERGE_PATCH];

/** RFC 7386: objects merge recursively, null deletes, everything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

function invalidPatch(message: string): StatusError {
  return new StatusError(422, 'Invalid', `the server rejected our request due to an error in our request: ${message}`);
}

/** RFC 6902 with `test`; a failed operation rejects the whole patch. */
export function jsonPatch(target: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) throw errors.badRequest('json patch must be an array of operations');
  const ops = patch as Operation[];
  const structural = validate(ops);
  if (structural) throw errors.badRequest(`invalid json patch: ${structural.message.split('\n')[0]}`);
  try {
    return applyPatch(structuredClone(target), ops, true, true).newDocument;
  } catch (err) {
    if (err instanceof JsonPatchError) {
      if (err.name === 'TEST_OPERATION_FAILED') return failTest(err);
      throw invalidPatch(err.message.split('\n')[0]);
    }
    throw invalidPatch((err as Error).message);
  }
}

function failTest(err: JsonPatchError): never {
  throw invalidPatch(`testing value at ${err.operation && 'path' in err.operation ? err.operation.path : '?'} failed`);
}

/** Applies a PATCH body to the current object by its Content-Type. */
export function applyPatchBody(contentType: string, current: Record<string, unknown>, body: Buffer): Record<string, unknown> {
  const type = parseMediaType(contentType).type;
  const patch = parseJson(body.toString('utf8'));
  let result: unknown;
  if (type === JSON_PATCH) result = jsonPatch(current, patch);
  else if (type === MERGE_PATCH) {
    if (!isPlainObject(patch)) throw errors.badRequest('merge patch must be a JSON object');
    result = mergePatch(current, patch);
  } else throw errors.unsupportedMediaType(PATCH_MEDIA_TYPES);
  if (!isPlainObject(result)) throw invalidPatch('the patched document is not an object');
  return result;
}

export function isSupportedPatchType(contentType: string | undefined): boolean {
  return PATCH_MEDIA_TYPES.includes(parseMediaType(contentType ?? '').type);
}
