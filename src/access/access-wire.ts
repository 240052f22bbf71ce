import { AccessExplanationStatus, ResourceAccessReviewStatus, SubjectRulesReviewSpec } from './access-types';

/** The access kinds' fields as the server writes them: empty optional fields left out. */

type Json = Record<string, unknown>;

function omitEmpty(fields: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null || value === '' || value === false) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    if (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) continue;
    out[key] = value;
  }
  return out;
}

/** users, groups, grants and incomplete always written: an empty list is an answer. */
export function resourceAccessReviewStatusToWire(status: ResourceAccessReviewStatus): Json {
  return {
    users: status.users,
    groups: status.groups,
    grants: status.grants,
    incomplete: status.incomplete,
    ...omitEmpty({ evaluationError: status.evaluationError, blocked: status.blocked }),
  };
}

export function subjectRulesReviewSpecToWire(spec: SubjectRulesReviewSpec): Json {
  const extra = spec.extra ? Object.fromEntries(Object.keys(spec.extra).sort().map((k) => [k, [...(spec.extra?.[k] ?? [])]])) : undefined;
  return omitEmpty({ user: spec.user, groups: spec.groups, uid: spec.uid, extra, namespace: spec.namespace });
}

/** allowed, decisions and grants always; near misses only when RBAC did not allow. */
export function accessExplanationStatusToWire(status: AccessExplanationStatus): Json {
  return {
    allowed: status.allowed,
    ...omitEmpty({ denied: status.denied, reason: status.reason, evaluationError: status.evaluationError }),
    decisions: status.decisions,
    ...omitEmpty({ deniedByGuardrail: status.deniedByGuardrail }),
    grants: status.grants,
    ...(status.nearMisses ? { nearMisses: status.nearMisses } : {}),
    ...(status.unusableBindings?.length ? { unusableBindings: status.unusableBindings } : {}),
  };
}
