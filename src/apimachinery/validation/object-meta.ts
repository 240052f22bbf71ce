import { FieldError, fieldErrors, FieldPath } from '../field-errors';
import { goStringSlice } from '../go-text';
import { ManagedFieldsEntry, ObjectMeta, OwnerReference } from '../types';
import { validateLabels } from './labels';
import { byteLength, isQualifiedName, validateNamespaceName } from './names';
import { list, str, strList, strRecord } from './shape';

/** Checks a name (or a generateName prefix) of a kind; the messages of what is wrong. */
export type NameValidator = (name: string, prefix: boolean) => string[];

/**
 * ObjectMeta validation shared by every kind, as apimachinery's api/validation
 * objectmeta.go: validateObjectMeta on create and update, validateObjectMetaUpdate for
 * what may not change between the stored and the new object.
 */

export const TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * 1024;
export const FIELD_MANAGER_MAX_LENGTH = 128;
export const MAX_SUBRESOURCE_NAME_LENGTH = 256;
export const FIELD_IMMUTABLE_ERROR_MSG = 'field is immutable';

const FINALIZER_ORPHAN_DEPENDENTS = 'orphan';
const FINALIZER_DELETE_DEPENDENTS = 'foregroundDeletion';
const MANAGED_FIELDS_OPERATIONS = ['Apply', 'Update'];

export interface ObjectMetaValidationOptions {
  namespaced: boolean;
  nameValidator: NameValidator;
}

/**
 * The field.TooLong text of current apimachinery. The shared fieldErrors.tooLong still
 * carries the older "may not be more than" wording, so the detail is set here.
 */
function tooLong(path: FieldPath, value: unknown, maxBytes: number): FieldError {
  return { ...fieldErrors.tooLong(path, value, maxBytes), detail: `must have at most ${maxBytes} bytes` };
}

// ---- create and update --------------------------------------------------------------

export function validateObjectMeta(
  meta: ObjectMeta,
  opts: ObjectMetaValidationOptions,
  path: FieldPath = FieldPath.root('metadata'),
): FieldError[] {
  return [
    ...validateNameFields(meta, opts.nameValidator, path),
    ...validateNamespaceField(str(meta.namespace), opts.namespaced, path.child('namespace')),
    ...validateNonnegative(meta.generation ?? 0, path.child('generation')),
    ...validateLabels(meta.labels, path.child('labels')),
    ...validateAnnotations(strRecord(meta.annotations), path.child('annotations')),
    ...validateOwnerReferences(list<OwnerReference>(meta.ownerReferences), path.child('ownerReferences')),
    ...validateFinalizers(strList(meta.finalizers), path.child('finalizers')),
    ...validateManagedFields(list<ManagedFieldsEntry>(meta.managedFields), path.child('managedFields')),
  ];
}

/** generateName is checked as a prefix; name is required (the server fills it from generateName first). */
function validateNameFields(meta: ObjectMeta, nameValidator: NameValidator, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const generateName = str(meta.generateName);
  const name = str(meta.name);
  if (generateName) {
    errs.push(...nameValidator(generateName, true).map((msg) => fieldErrors.invalid(path.child('generateName'), generateName, msg)));
  }
  if (!name) errs.push(fieldErrors.required(path.child('name'), 'name or generateName is required'));
  else errs.push(...nameValidator(name, false).map((msg) => fieldErrors.invalid(path.child('name'), name, msg)));
  return errs;
}

function validateNamespaceField(namespace: string, namespaced: boolean, path: FieldPath): FieldError[] {
  if (!namespaced) return namespace ? [fieldErrors.forbidden(path, 'not allowed on this type')] : [];
  if (!namespace) return [fieldErrors.required(path)];
  return validateNamespaceName(namespace, false).map((msg) => fieldErrors.invalid(path, namespace, msg));
}

function validateNonnegative(value: number, path: FieldPath): FieldError[] {
  return value < 0 ? [fieldErrors.invalid(path, value, 'must be greater than or equal to 0')] : [];
}

/** Keys are qualified names in any case; keys and values together fit in 256 KiB. */
export function validateAnnotations(annotations: Record<string, string>, path: FieldPath): FieldError[] {
  const errs = Object.keys(annotations).flatMap((key) =>
    isQualifiedName(key.toLowerCase()).map((msg) => fieldErrors.invalid(path, key, msg)),
  );
  const size = Object.entries(annotations).reduce((sum, [k, v]) => sum + byteLength(k) + byteLength(v), 0);
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT_B) errs.push(tooLong(path, '', TOTAL_ANNOTATION_SIZE_LIMIT_B));
  return errs;
}

/** kube's schema.ParseGroupVersion; null when the string has more than one '/'. */
function parseGroupVersion(apiVersion: string): { group: string; version: string } | null {
  if (!apiVersion || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  return null;
}

/** Events may not own objects (kube's BannedOwners). */
function isBannedOwner(group: string, version: string, kind: string): boolean {
  return group === '' && version === 'v1' && kind === 'Event';
}

// Errors of single references name the list, not the index, as kube's do.
function validateOwnerReference(ref: OwnerReference, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const gv = parseGroupVersion(str(ref.apiVersion)) ?? { group: '', version: '' };
  const kind = str(ref.kind);
  if (!gv.version) errs.push(fieldErrors.invalid(path.child('apiVersion'), str(ref.apiVersion), 'version must not be empty'));
  if (!kind) errs.push(fieldErrors.invalid(path.child('kind'), kind, 'must not be empty'));
  if (!str(ref.name)) errs.push(fieldErrors.invalid(path.child('name'), str(ref.name), 'must not be empty'));
  if (!str(ref.uid)) errs.push(fieldErrors.invalid(path.child('uid'), str(ref.uid), 'must not be empty'));
  if (isBannedOwner(gv.group, gv.version, kind)) {
    errs.push(fieldErrors.invalid(path, ref, `${gv.group}/${gv.version}, Kind=${kind} is disallowed from being an owner`));
  }
  return errs;
}

/** Each reference is complete; at most one is the controller. */
export function validateOwnerReferences(refs: OwnerReference[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs) {
    const current = ref ?? ({} as OwnerReference);
    errs.push(...validateOwnerReference(current, path));
    if (current.controller !== true) continue;
    const controllerName = `${str(current.kind)}/${str(current.name)}`;
    if (!firstController) {
      firstController = controllerName;
      continue;
    }
    errs.push(
      fieldErrors.invalid(
        path,
        refs,
        `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${controllerName}`,
      ),
    );
  }
  return errs;
}

export function validateFinalizerName(name: string, path: FieldPath): FieldError[] {
  return isQualifiedName(name).map((msg) => fieldErrors.invalid(path, name, msg));
}

/** Finalizers are qualified names; orphaning and foreground deletion exclude each other. */
export function validateFinalizers(finalizers: string[], path: FieldPath): FieldError[] {
  const errs = finalizers.flatMap((f) => validateFinalizerName(f, path));
  if (finalizers.includes(FINALIZER_ORPHAN_DEPENDENTS) && finalizers.includes(FINALIZER_DELETE_DEPENDENTS)) {
    errs.push(
      fieldErrors.invalid(
        path,
        finalizers,
        `finalizer ${FINALIZER_ORPHAN_DEPENDENTS} and ${FINALIZER_DELETE_DEPENDENTS} cannot be both set`,
      ),
    );
  }
  return errs;
}

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** A field manager is at most 128 bytes of printable characters. */
export function validateFieldManager(manager: string, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (byteLength(manager) > FIELD_MANAGER_MAX_LENGTH) errs.push(tooLong(path, manager, FIELD_MANAGER_MAX_LENGTH));
  let offset = 0; // a byte offset, as Go's range over a string yields
  for (const ch of manager) {
    if (!PRINTABLE.test(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errs.push(fieldErrors.invalid(path, manager, `invalid character U+${code} (at position ${offset})`));
    }
    offset += byteLength(ch);
  }
  return errs;
}

export function validateManagedFields(entries: ManagedFieldsEntry[], path: FieldPath): FieldError[] {
  return entries.flatMap((entry, i) => {
    const at = path.index(i);
    const e = entry ?? {};
    const errs: FieldError[] = [];
    const operation = str(e.operation);
    if (!MANAGED_FIELDS_OPERATIONS.includes(operation)) {
      errs.push(fieldErrors.invalid(at.child('operation'), operation, 'must be `Apply` or `Update`'));
    }
    const fieldsType = str(e.fieldsType);
    if (fieldsType && fieldsType !== 'FieldsV1') errs.push(fieldErrors.invalid(at.child('fieldsType'), fieldsType, 'must be `FieldsV1`'));
    errs.push(...validateFieldManager(str(e.manager), at.child('manager')));
    const subresource = str(e.subresource);
    if (byteLength(subresource) > MAX_SUBRESOURCE_NAME_LENGTH) {
      errs.push(tooLong(at.child('subresource'), subresource, MAX_SUBRESOURCE_NAME_LENGTH));
    }
    return errs;
  });
}

// ---- update only ----------------------------------------------------------------------

export function validateImmutableField(newValue: unknown, oldValue: unknown, path: FieldPath): FieldError[] {
  return newValue === oldValue ? [] : [fieldErrors.invalid(path, newValue, FIELD_IMMUTABLE_ERROR_MSG)];
}

/** An object being deleted may lose finalizers but not gain new ones. */
export function validateNoNewFinalizers(newFinalizers: string[], oldFinalizers: string[], path: FieldPath): FieldError[] {
  const added = [...new Set(newFinalizers.filter((f) => !oldFinalizers.includes(f)))].sort();
  if (!added.length) return [];
  const detail = `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(added)}`;
  return [fieldErrors.forbidden(path, detail)];
}

/** Absent and null pointers compare equal, as a nil *T does in Go. */
const orNull = (value: unknown) => (value === undefined ? null : value);

/**
 * What may not change on update (kube's ValidateObjectMetaUpdate). Labels, annotations and
 * the other per-object rules are left to validateObjectMeta, which the update path runs
 * too, so each problem is reported once. The resourceVersion precondition is enforced by
 * the storage layer before this runs (unconditional updates are allowed for all our kinds).
 */
export function validateObjectMetaUpdate(
  newMeta: ObjectMeta,
  oldMeta: ObjectMeta,
  path: FieldPath = FieldPath.root('metadata'),
): FieldError[] {
  const errs: FieldError[] = [];
  if (oldMeta.deletionTimestamp) {
    errs.push(...validateNoNewFinalizers(strList(newMeta.finalizers), strList(oldMeta.finalizers), path.child('finalizers')));
  }
  const newGeneration = typeof newMeta.generation === 'number' ? newMeta.generation : 0;
  if (newGeneration < (oldMeta.generation ?? 0)) {
    errs.push(fieldErrors.invalid(path.child('generation'), newGeneration, 'must not be decremented'));
  }
  for (const field of ['name', 'namespace', 'uid', 'creationTimestamp'] as const) {
    errs.push(...validateImmutableField(str(newMeta[field]), str(oldMeta[field]), path.child(field)));
  }
  for (const field of ['deletionTimestamp', 'deletionGracePeriodSeconds'] as const) {
    errs.push(...validateImmutableField(orNull(newMeta[field]), orNull(oldMeta[field]), path.child(field)));
  }
  return errs;
}
