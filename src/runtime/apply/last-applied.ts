import { StructSchema } from '../schema/schema';
import { KubeObject } from '../../apimachinery/types';
import { deepClone } from '../../apimachinery/system-metadata';
import { parseJsonWithinDepth } from '../document/nesting';
import { TOTAL_ANNOTATION_SIZE_LIMIT_B } from '../../apimachinery/validation/object-meta';
import { FieldSet } from './field-set';
import { compare, toFieldSet, TypedValueError, validateValue } from './typed-value';
import { goJson, isJsonObject, JsonValue } from './value';

/**
 * The bridge from kubectl's client-side apply to server-side apply, as kube builds it into
 * its field manager: client-side apply keeps the configuration it last applied in an
 * annotation, and its fields belong to an Update manager. When `kubectl apply
 * --server-side` (manager `kubectl`) conflicts only on fields that annotation lists with
 * their live values, it takes them without `--force-conflicts`; and while the annotation
 * is there, server-side applies by `kubectl` keep it current so a later client-side apply
 * still computes the right diff.
 */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** The only manager this bridge serves; other managers opt out by their name. */
export const KUBECTL_MANAGER = 'kubectl';

function lastAppliedOf(obj: KubeObject): string | undefined {
  const value = obj.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
  return value ? value : undefined;
}

/**
 * The fields a client-side apply recorded in the annotation whose live values still match
 * it: conflicts on these are the applier's own (lastAppliedManager). Null when there is no
 * usable annotation.
 */
export function fieldsFromLastApplied(live: Record<string, unknown>, apiVersion: string, schema: StructSchema): FieldSet | null {
  const text = lastAppliedOf(live as KubeObject);
  if (!text) return null;
  let applied: unknown;
  try {
    applied = parseJsonWithinDepth(text);
  } catch {
    return null;
  }
  if (!isJsonObject(applied) || applied.apiVersion !== apiVersion) return null;
  try {
    validateValue(applied, schema);
  } catch (err) {
    if (err instanceof TypedValueError) return null;
    throw err;
  }
  const differences = compare(applied, live, schema);
  return toFieldSet(applied, schema).difference(differences.modified).difference(differences.added).difference(differences.removed);
}

/**
 * After a server-side apply by kubectl on an object that has the annotation, the
 * annotation becomes that configuration (without the annotation itself), as JSON the way
 * Go encodes it; dropped if the annotations would grow past their size limit.
 */
export function refreshLastApplied(result: KubeObject, config: Record<string, unknown>): void {
  if (!lastAppliedOf(result)) return;
  const copy = deepClone(config) as Record<string, JsonValue>;
  const metadata = copy.metadata;
  if (isJsonObject(metadata) && isJsonObject(metadata.annotations)) {
    delete metadata.annotations[LAST_APPLIED_ANNOTATION];
  }
  const annotations: Record<string, string> = { ...result.metadata.annotations, [LAST_APPLIED_ANNOTATION]: `${goJson(copy)}\n` };
  const size = Object.entries(annotations).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT_B) delete annotations[LAST_APPLIED_ANNOTATION];
  result.metadata.annotations = annotations;
}
