import { ObjectMeta } from '../apimachinery/types';
import { RuleResolution } from '../authorization/authorizer';
import {
  NonResourceAttributes,
  ResourceAttributes,
  SelectorAttributes,
  SelectorRequirement,
  SelfSubjectAccessReviewSpec,
  SubjectAccessReviewSpec,
  SubjectAccessReviewStatus,
} from './review-types';

/**
 * Reviews as kube's JSON encoder writes them back: fields in the Go structs' order, empty
 * strings, lists and maps omitted (`omitempty`), map keys sorted.
 */

type Json = Record<string, unknown>;

/** Go's omitempty over a struct's fields, keeping their order. */
function omitEmpty(fields: Json): Json {
  const out: Json = {};
  for (const key in fields) putUnlessEmpty(out, key, fields[key]);
  return out;
}

/** Adds a field unless Go's omitempty drops it: empty strings, lists and maps, false, absent. */
function putUnlessEmpty(out: Json, key: string, value: unknown): void {
  if (value === undefined || value === '' || value === false) return;
  if (Array.isArray(value)) {
    if (value.length === 0) return;
  } else if (value !== null && typeof value === 'object' && isEmptyObject(value)) return;
  out[key] = value;
}

function isEmptyObject(value: object): boolean {
  for (const _ in value) return false;
  return true;
}

function sortedStringLists(map: Record<string, string[]> | undefined): Record<string, string[]> | undefined {
  if (!map) return undefined;
  return Object.fromEntries(
    Object.keys(map)
      .sort()
      .map((k) => [k, [...(map[k] ?? [])]]),
  );
}

function requirementToWire(r: SelectorRequirement): Json {
  return { key: r.key ?? '', operator: r.operator ?? '', ...omitEmpty({ values: r.values }) };
}

/** A present selector struct stays (as `{}` when empty): Go writes a non-nil pointer. */
function selectorToWire(selector: SelectorAttributes | undefined): Json | undefined {
  if (!selector) return undefined;
  return omitEmpty({ rawSelector: selector.rawSelector, requirements: selector.requirements?.map(requirementToWire) });
}

/** Written field by field, in the struct's order (every access review answers with one). */
function resourceAttributesToWire(attrs: ResourceAttributes): Json {
  const out: Json = {};
  putUnlessEmpty(out, 'namespace', attrs.namespace);
  putUnlessEmpty(out, 'verb', attrs.verb);
  putUnlessEmpty(out, 'group', attrs.group);
  putUnlessEmpty(out, 'version', attrs.version);
  putUnlessEmpty(out, 'resource', attrs.resource);
  putUnlessEmpty(out, 'subresource', attrs.subresource);
  putUnlessEmpty(out, 'name', attrs.name);
  const fieldSelector = selectorToWire(attrs.fieldSelector);
  if (fieldSelector) out.fieldSelector = fieldSelector;
  const labelSelector = selectorToWire(attrs.labelSelector);
  if (labelSelector) out.labelSelector = labelSelector;
  return out;
}

function nonResourceAttributesToWire(attrs: NonResourceAttributes): Json {
  return omitEmpty({ path: attrs.path, verb: attrs.verb });
}

/** The spec of any access review (the self kind simply has no subject fields). */
export function accessReviewSpecToWire(spec: SubjectAccessReviewSpec | SelfSubjectAccessReviewSpec): Json {
  const out: Json = {};
  if (spec.resourceAttributes) out.resourceAttributes = resourceAttributesToWire(spec.resourceAttributes);
  if (spec.nonResourceAttributes) out.nonResourceAttributes = nonResourceAttributesToWire(spec.nonResourceAttributes);
  const subject = spec as SubjectAccessReviewSpec;
  putUnlessEmpty(out, 'user', subject.user);
  putUnlessEmpty(out, 'groups', subject.groups);
  putUnlessEmpty(out, 'extra', sortedStringLists(subject.extra));
  putUnlessEmpty(out, 'uid', subject.uid);
  return out;
}

/** `allowed` is always written; `denied` only when true; empty texts never. */
export function accessReviewStatusToWire(status: SubjectAccessReviewStatus): Json {
  const out: Json = { allowed: status.allowed };
  putUnlessEmpty(out, 'denied', status.denied);
  putUnlessEmpty(out, 'reason', status.reason);
  putUnlessEmpty(out, 'evaluationError', status.evaluationError);
  return out;
}

/**
 * The metadata a review answers with: never stored, so no name, uid or timestamp
 * (`creationTimestamp: null`, as Go writes a zero time), but the namespace of a local
 * review and the managedFields the request was recorded with.
 */
export function reviewMetadataToWire(meta: ObjectMeta | undefined): Json {
  const out: Json = {};
  if (meta?.namespace) out.namespace = meta.namespace;
  out.creationTimestamp = null;
  if (meta?.managedFields?.length) out.managedFields = meta.managedFields;
  return out;
}

/** SelfSubjectRulesReview's status: both rule lists always present, as kube writes them. */
export function rulesReviewStatusToWire(rules: RuleResolution): Json {
  return {
    resourceRules: rules.resourceRules.map((r) =>
      ({ verbs: [...r.verbs], ...omitEmpty({ apiGroups: r.apiGroups, resources: r.resources, resourceNames: r.resourceNames }) }),
    ),
    nonResourceRules: rules.nonResourceRules.map((r) => ({ verbs: [...r.verbs], ...omitEmpty({ nonResourceURLs: r.nonResourceURLs }) })),
    incomplete: rules.incomplete,
    ...omitEmpty({ evaluationError: rules.evaluationError }),
  };
}

/** authentication/v1 UserInfo. */
export function userInfoToWire(user: { username: string; uid?: string; groups: string[]; extra?: Record<string, string[]> }): Json {
  return omitEmpty({ username: user.username, uid: user.uid, groups: user.groups, extra: sortedStringLists(user.extra) });
}
