import { FieldError, fieldErrors, FieldPath } from '../../apimachinery/field-errors';

/**
 * Bootstrap token Secrets (kube's bootstrap.kubernetes.io/token, translated): the Secret
 * `bootstrap-token-<id>` in kube-system holds `token-id` and `token-secret`, and says what
 * the token may do (`usage-bootstrap-authentication`, `usage-bootstrap-signing`), until when
 * (`expiration`, RFC 3339) and in which extra groups (`auth-extra-groups`).
 */
export const SECRET_TYPE_BOOTSTRAP_TOKEN = 'bootstrap.platform.io/token';
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
export const BOOTSTRAP_TOKEN_ID_KEY = 'token-id';
export const BOOTSTRAP_TOKEN_SECRET_KEY = 'token-secret';
export const BOOTSTRAP_TOKEN_EXPIRATION_KEY = 'expiration';
export const BOOTSTRAP_TOKEN_EXTRA_GROUPS_KEY = 'auth-extra-groups';
export const BOOTSTRAP_TOKEN_USAGE_AUTHENTICATION = 'usage-bootstrap-authentication';
export const BOOTSTRAP_TOKEN_USAGE_SIGNING = 'usage-bootstrap-signing';
/** Every bootstrap token's user is in this group; extra groups must start with `system:bootstrappers:`. */
export const BOOTSTRAPPERS_GROUP = 'system:bootstrappers';

/** kube's bootstrap token pattern: a 6-character id, a dot, a 16-character secret. */
export const BOOTSTRAP_TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const TOKEN_ID_PATTERN = /^[a-z0-9]{6}$/;
const TOKEN_SECRET_PATTERN = /^[a-z0-9]{16}$/;
/** kube's BootstrapGroupPattern. */
const EXTRA_GROUP_PATTERN = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
/** RFC 3339, as Go's time.Parse(time.RFC3339) reads it. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** A Secret data value as text (data is base64). */
export function secretString(data: Record<string, string> | undefined, key: string): string {
  const value = data?.[key];
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : '';
}

/** The `auth-extra-groups` value, split and checked; an invalid group makes the token unusable. */
export function bootstrapExtraGroups(value: string): { groups: string[]; invalid?: string } {
  const groups: string[] = [];
  for (const group of value.split(',').map((g) => g.trim())) {
    if (!group) continue;
    if (!EXTRA_GROUP_PATTERN.test(group)) return { groups, invalid: group };
    groups.push(group);
  }
  return { groups };
}

/** The expiration time in ms, undefined when there is none, NaN when it does not parse. */
export function bootstrapExpiration(data: Record<string, string> | undefined): number | undefined {
  const text = secretString(data, BOOTSTRAP_TOKEN_EXPIRATION_KEY);
  if (!text) return undefined;
  return RFC3339.test(text) ? Date.parse(text) : NaN;
}

/** kube's bootstrap token Secret checks: id and secret formats, the name, the expiration and the extra groups. */
export function validateBootstrapTokenSecret(name: string, data: Record<string, string>): FieldError[] {
  const errs: FieldError[] = [];
  const dataPath = FieldPath.root('data');
  const id = secretString(data, BOOTSTRAP_TOKEN_ID_KEY);
  if (!Object.hasOwn(data, BOOTSTRAP_TOKEN_ID_KEY)) errs.push(fieldErrors.required(dataPath.key(BOOTSTRAP_TOKEN_ID_KEY), ''));
  else if (!TOKEN_ID_PATTERN.test(id)) errs.push(fieldErrors.invalid(dataPath.key(BOOTSTRAP_TOKEN_ID_KEY), id, `must match ${TOKEN_ID_PATTERN.source}`));
  else if (name !== `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${id}`) {
    errs.push(fieldErrors.invalid(FieldPath.root('metadata').child('name'), name, `must be ${BOOTSTRAP_TOKEN_SECRET_PREFIX}<token-id>`));
  }
  if (!Object.hasOwn(data, BOOTSTRAP_TOKEN_SECRET_KEY)) errs.push(fieldErrors.required(dataPath.key(BOOTSTRAP_TOKEN_SECRET_KEY), ''));
  else if (!TOKEN_SECRET_PATTERN.test(secretString(data, BOOTSTRAP_TOKEN_SECRET_KEY))) {
    errs.push(fieldErrors.invalid(dataPath.key(BOOTSTRAP_TOKEN_SECRET_KEY), '<secret contents redacted>', `must match ${TOKEN_SECRET_PATTERN.source}`));
  }
  const expiration = bootstrapExpiration(data);
  if (expiration !== undefined && Number.isNaN(expiration)) {
    errs.push(fieldErrors.invalid(dataPath.key(BOOTSTRAP_TOKEN_EXPIRATION_KEY), secretString(data, BOOTSTRAP_TOKEN_EXPIRATION_KEY), 'must be a time in RFC 3339 format'));
  }
  const { invalid } = bootstrapExtraGroups(secretString(data, BOOTSTRAP_TOKEN_EXTRA_GROUPS_KEY));
  if (invalid !== undefined) errs.push(fieldErrors.invalid(dataPath.key(BOOTSTRAP_TOKEN_EXTRA_GROUPS_KEY), invalid, `must match ${EXTRA_GROUP_PATTERN.source}`));
  return errs;
}
