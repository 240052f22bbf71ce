import { UserInfo } from '../../apimachinery/user-info';
import { AuthorizationAttributes } from '../../authorization/authorizer';
import { fieldSelectorAttribute, labelSelectorAttribute, nonResourceAttributes, resourceAttributes, SELECTOR_VERBS } from '../../authorization/request-attributes';
import { RequestInfo } from '../request/request-info';

export interface RequestAttributeOptions {
  /** The AuthorizeWithSelectors feature gate: pass parsed selectors to authorizers. */
  authorizeWithSelectors: boolean;
}

function firstString(value: unknown): string | undefined {
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** The attributes of an HTTP request, from its request info, caller and query. */
export function attributesOf(
  info: RequestInfo,
  user: UserInfo,
  query: Record<string, unknown> = {},
  options: RequestAttributeOptions = { authorizeWithSelectors: false },
): AuthorizationAttributes {
  if (!info.isResourceRequest) return nonResourceAttributes(user, info.verb, info.path);
  const selectors = options.authorizeWithSelectors && SELECTOR_VERBS.has(info.verb);
  return resourceAttributes({
    user,
    verb: info.verb,
    path: info.path,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
    fieldSelector: selectors ? fieldSelectorAttribute(firstString(query.fieldSelector)) : undefined,
    labelSelector: selectors ? labelSelectorAttribute(firstString(query.labelSelector)) : undefined,
  });
}
