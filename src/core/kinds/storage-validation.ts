import { FieldError, fieldErrors, FieldPath } from '../../apimachinery/field-errors';
import { isPlainObject } from '../../apimachinery/types';
import { isDNS1123Subdomain } from '../../apimachinery/validation/names';
import { list, str } from '../../apimachinery/validation/shape';
import { parseQuantity } from './quantity';

/** Rules PersistentVolume and PersistentVolumeClaim share (kube's pkg/apis/core/validation). */

/** Sorted, as kube's sets list them. */
export const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
export const VOLUME_MODES = ['Block', 'Filesystem'];

export function validateAccessModes(modes: unknown, path: FieldPath, required: FieldError): FieldError[] {
  const values = list<unknown>(modes).map(str);
  if (!values.length) return [required];
  return values.filter((m) => !ACCESS_MODES.includes(m)).map((m) => fieldErrors.notSupported(path, m, ACCESS_MODES));
}

/** A quantity that has already parsed (bad syntax is a 400 earlier) must be above zero. */
export function validatePositiveQuantity(value: unknown, path: FieldPath): FieldError[] {
  if (parseQuantity(value).sign > 0) return [];
  return [fieldErrors.invalid(path, typeof value === 'number' ? String(value) : str(value), 'must be greater than zero')];
}

export function validateStorageClassName(value: unknown, path: FieldPath): FieldError[] {
  const name = str(value);
  if (!name) return [];
  return isDNS1123Subdomain(name).map((msg) => fieldErrors.invalid(path, name, msg));
}

export function validateVolumeMode(value: unknown, path: FieldPath): FieldError[] {
  const mode = str(value);
  if (!mode || VOLUME_MODES.includes(mode)) return [];
  return [fieldErrors.notSupported(path, mode, VOLUME_MODES)];
}

export function storageRequest(resources: unknown): unknown {
  return isPlainObject(resources) && isPlainObject(resources.requests) ? resources.requests.storage : undefined;
}
