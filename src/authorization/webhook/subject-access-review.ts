import { AuthorizationAttributes, SelectorAttribute } from '../authorizer';
import { FieldRequirement } from '../../apimachinery/selectors/field-selector';
import { LabelRequirement } from '../../apimachinery/selectors/label-selector';
import { setOwn } from '../../apimachinery/types';

/** authorization/v1 SelectorRequirement (field selectors use In/NotIn, label selectors also Exists/DoesNotExist). */
export interface SelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface SelectorAttributes {
  rawSelector?: string;
  requirements?: SelectorRequirement[];
}

export interface ResourceAttributes {
  namespace: string;
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  name: string;
  fieldSelector?: SelectorAttributes;
  labelSelector?: SelectorAttributes;
}

export interface NonResourceAttributes {
  path: string;
  verb: string;
}

/** A v1 SubjectAccessReview spec with every field present (empty strings and lists included). */
export interface SubjectAccessReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
  user: string;
  groups: string[];
  extra: Record<string, string[]>;
  uid: string;
}

export interface SubjectAccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

export const AUTHORIZATION_GROUP = 'authorization.platform.io';

export type SubjectAccessReviewVersionName = 'v1' | 'v1beta1';

/**
 * kube's webhook authorizer converts selector requirements to the review's form: `=`, `==`
 * and `in` become In, `!=` and `notin` NotIn, label existence tests Exists/DoesNotExist;
 * anything else is dropped (requirements are ANDed, so dropping one only widens the check).
 */
function fieldRequirements(selector: SelectorAttribute<FieldRequirement> | undefined): SelectorRequirement[] {
  return (selector?.requirements ?? []).map((r) => ({ key: r.field, operator: r.operator === 'NotEquals' ? 'NotIn' : 'In', values: [r.value] }));
}

const labelOperators: Record<string, string | undefined> = {
  Equals: 'In',
  DoubleEquals: 'In',
  In: 'In',
  NotEquals: 'NotIn',
  NotIn: 'NotIn',
  Exists: 'Exists',
  DoesNotExist: 'DoesNotExist',
};

function labelRequirements(selector: SelectorAttribute<LabelRequirement> | undefined): SelectorRequirement[] {
  const out: SelectorRequirement[] = [];
  for (const r of selector?.requirements ?? []) {
    const operator = labelOperators[r.operator];
    if (!operator) continue;
    out.push({ key: r.key, operator, ...(r.values.length ? { values: [...r.values] } : {}) });
  }
  return out;
}

function sortedExtra(extra: Record<string, string[]> | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const key of Object.keys(extra ?? {}).sort()) setOwn(out, key, [...extra![key]]);
  return out;
}

/** The review the webhook is asked, built from the request's attributes. */
export function reviewSpecFor(attrs: AuthorizationAttributes): SubjectAccessReviewSpec {
  const spec: SubjectAccessReviewSpec = {
    user: attrs.user.username,
    groups: [...attrs.user.groups],
    extra: sortedExtra(attrs.user.extra),
    uid: attrs.user.uid ?? '',
  };
  if (!attrs.isResourceRequest) {
    spec.nonResourceAttributes = { path: attrs.path, verb: attrs.verb };
    return spec;
  }
  const resource: ResourceAttributes = {
    namespace: attrs.namespace,
    verb: attrs.verb,
    group: attrs.apiGroup,
    version: attrs.apiVersion,
    resource: attrs.resource,
    subresource: attrs.subresource,
    name: attrs.name,
  };
  const fields = fieldRequirements(attrs.fieldSelector);
  if (fields.length) resource.fieldSelector = { requirements: fields };
  const labels = labelRequirements(attrs.labelSelector);
  if (labels.length) resource.labelSelector = { requirements: labels };
  spec.resourceAttributes = resource;
  return spec;
}

/** Go's `omitempty`: drops empty strings, empty lists and empty maps; keeps the rest in order. */
function omitEmpty<T extends object>(value: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value) as [string, unknown][]) {
    if (v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    if (typeof v === 'object' && !Array.isArray(v) && v !== null && Object.keys(v).length === 0) continue;
    out[key] = v;
  }
  return out as Partial<T>;
}

/** The spec as JSON puts it on the wire; v1beta1 names the groups list `group`. */
export function wireSpec(spec: SubjectAccessReviewSpec, version: SubjectAccessReviewVersionName): Record<string, unknown> {
  const wire: Record<string, unknown> = {};
  if (spec.resourceAttributes) wire.resourceAttributes = omitEmpty(spec.resourceAttributes);
  if (spec.nonResourceAttributes) wire.nonResourceAttributes = omitEmpty(spec.nonResourceAttributes);
  Object.assign(wire, omitEmpty({ user: spec.user, [version === 'v1' ? 'groups' : 'group']: spec.groups, extra: spec.extra, uid: spec.uid }));
  return wire;
}

/** The full request body, as kube serialises a new SubjectAccessReview. */
export function reviewRequestBody(spec: SubjectAccessReviewSpec, version: SubjectAccessReviewVersionName): Record<string, unknown> {
  return {
    kind: 'SubjectAccessReview',
    apiVersion: `${AUTHORIZATION_GROUP}/${version}`,
    metadata: { creationTimestamp: null },
    spec: wireSpec(spec, version),
    status: { allowed: false },
  };
}

/** A webhook answer that is not a well-formed SubjectAccessReview. */
export class MalformedReviewError extends Error {}

function typeError(field: string, expected: string, value: unknown): MalformedReviewError {
  const got = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value === 'object' ? 'object' : typeof value === 'boolean' ? 'bool' : typeof value;
  return new MalformedReviewError(`json: cannot unmarshal ${got} into Go struct field SubjectAccessReviewStatus.status.${field} of type ${expected}`);
}

/** Decodes the webhook's answer: a SubjectAccessReview of the version asked, with a status. */
export function parseReviewResponse(body: string, version: SubjectAccessReviewVersionName): SubjectAccessReviewStatus {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch (err) {
    throw new MalformedReviewError(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new MalformedReviewError('couldn\'t get version/kind; json parse error: not a JSON object');
  const review = doc as Record<string, unknown>;
  const compact = body.length > 200 ? `${body.slice(0, 200)}...` : body;
  if (!review.kind) throw new MalformedReviewError(`Object 'Kind' is missing in '${compact}'`);
  if (!review.apiVersion) throw new MalformedReviewError(`Object 'apiVersion' is missing in '${compact}'`);
  const expected = `${AUTHORIZATION_GROUP}/${version}`;
  if (review.apiVersion !== expected || review.kind !== 'SubjectAccessReview') {
    throw new MalformedReviewError(`no kind ${JSON.stringify(review.kind)} is registered for version ${JSON.stringify(review.apiVersion)}; expected SubjectAccessReview ${expected}`);
  }
  const status = (review.status ?? {}) as Record<string, unknown>;
  if (typeof status !== 'object' || Array.isArray(status)) throw typeError('', 'v1.SubjectAccessReviewStatus', status);
  for (const field of ['allowed', 'denied'] as const) {
    if (status[field] !== undefined && status[field] !== null && typeof status[field] !== 'boolean') throw typeError(field, 'bool', status[field]);
  }
  for (const field of ['reason', 'evaluationError'] as const) {
    if (status[field] !== undefined && status[field] !== null && typeof status[field] !== 'string') throw typeError(field, 'string', status[field]);
  }
  return {
    allowed: status.allowed === true,
    ...(status.denied === true ? { denied: true } : {}),
    ...(typeof status.reason === 'string' && status.reason ? { reason: status.reason } : {}),
    ...(typeof status.evaluationError === 'string' && status.evaluationError ? { evaluationError: status.evaluationError } : {}),
  };
}
