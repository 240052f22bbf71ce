import { errors, StatusError } from '../../apimachinery/errors';
import { FieldError, fieldErrors, FieldPath } from '../../apimachinery/field-errors';
import { jsonEqual } from '../../apimachinery/system-metadata';
import { isPlainObject } from '../../apimachinery/types';
import { byteLength, DNS1123_SUBDOMAIN_MAX_LENGTH, isDNS1123Label, isDNS1123Subdomain, maxLenError, regexError } from '../../apimachinery/validation/names';
import { str } from '../../apimachinery/validation/shape';
import { quantityError } from './quantity';

/** Validation helpers the core kinds share (kube's pkg/apis/core/validation). */

/** kube rejects a body its decoder cannot read with 400: `<Kind> in version "v1" cannot be handled as a <Kind>: <why>`. */
export function decodeError(kind: string, why: string): StatusError {
  return errors.badRequest(`${kind} in version "v1" cannot be handled as a ${kind}: ${why}`);
}

/** Quantities are parsed while decoding in kube, so a bad one is a 400, not a field error. */
export function assertQuantities(kind: string, lists: unknown[]): void {
  for (const resourceList of lists) {
    if (!isPlainObject(resourceList)) continue;
    for (const value of Object.values(resourceList)) {
      const why = quantityError(value);
      if (why) throw decodeError(kind, why);
    }
  }
}

/** A single quantity field (emptyDir.sizeLimit, divisor) read the same way. */
export function assertQuantity(kind: string, value: unknown): void {
  if (value === undefined || value === null) return;
  const why = quantityError(value);
  if (why) throw decodeError(kind, why);
}

const CONFIG_KEY_FMT = '[-._a-zA-Z0-9]+';
const CONFIG_KEY_ERR = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const configKeyRe = new RegExp(`^${CONFIG_KEY_FMT}$`);

/** apimachinery's IsConfigMapKey: keys of Secret data and ConfigMap data/binaryData. */
export function isConfigMapKey(key: string): string[] {
  const errs: string[] = [];
  if (byteLength(key) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!configKeyRe.test(key)) errs.push(regexError(CONFIG_KEY_ERR, CONFIG_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'));
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** A required DNS-1123 label field (container, volume and port names). */
export function validateDNSLabelField(value: unknown, path: FieldPath): FieldError[] {
  const s = str(value);
  if (!s) return [fieldErrors.required(path, '')];
  return isDNS1123Label(s).map((msg) => fieldErrors.invalid(path, s, msg));
}

/** An optional reference by name to an object whose names are DNS-1123 subdomains. */
export function validateSubdomainReference(value: unknown, path: FieldPath): FieldError[] {
  const s = str(value);
  if (!s) return [];
  return isDNS1123Subdomain(s).map((msg) => fieldErrors.invalid(path, s, msg));
}

/** A required name field: `Required value` when empty. */
export function requireString(value: unknown, path: FieldPath, detail = ''): FieldError[] {
  return str(value) ? [] : [fieldErrors.required(path, detail)];
}

/** An enumerated string field; `supported` in the order kube lists them (mostly sorted). */
export function validateOneOf(value: unknown, supported: string[], path: FieldPath): FieldError[] {
  const s = str(value);
  return supported.includes(s) ? [] : [fieldErrors.notSupported(path, s, supported)];
}

/** `immutable: true` freezes the object's payload (Secret data, ConfigMap data/binaryData). */
export function validateFrozenPayload(obj: Record<string, unknown>, old: Record<string, unknown>, fields: string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const errs: FieldError[] = [];
  const detail = 'field is immutable when `immutable` is set';
  if (obj.immutable !== true) errs.push(fieldErrors.forbidden(FieldPath.root('immutable'), detail));
  for (const field of fields) {
    if (!jsonEqual(emptyAsAbsent(obj[field]), emptyAsAbsent(old[field]))) errs.push(fieldErrors.forbidden(FieldPath.root(field), detail));
  }
  return errs;
}

/** Go's reflect.DeepEqual sees a nil map and an absent one alike; JSON null and {} decode to nil/empty. */
function emptyAsAbsent(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (isPlainObject(value) && Object.keys(value).length === 0) return undefined;
  return value;
}
