import { FieldRequirement, parseFieldSelector } from '../apimachinery/selectors/field-selector';
import { LabelRequirement, parseLabelSelector, SelectorParseError } from '../apimachinery/selectors/label-selector';
import { UserInfo } from '../apimachinery/user-info';
import { AuthorizationAttributes, SelectorAttribute } from './authorizer';

/**
 * The one place requests (and access reviews) become authorizer attributes, as kube's
 * GetAuthorizerAttributes does: user, verb, path, and for resource requests group,
 * version, resource, subresource, namespace and name; with the AuthorizeWithSelectors gate
 * also the parsed field and label selectors of list, watch and deletecollection.
 */

/** The verbs whose selectors kube passes to authorizers (they read or delete many objects). */
export const SELECTOR_VERBS: ReadonlySet<string> = new Set(['list', 'watch', 'deletecollection']);

/** What a resource request is about, as plain values (an access review's resourceAttributes). */
export interface ResourceAttributeValues {
  user: UserInfo;
  verb: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** The request path, when there is one (reviews have none). */
  path?: string;
  fieldSelector?: SelectorAttribute<FieldRequirement>;
  labelSelector?: SelectorAttribute<LabelRequirement>;
}

export function resourceAttributes(values: ResourceAttributeValues): AuthorizationAttributes {
  const attrs: AuthorizationAttributes = {
    user: values.user,
    verb: values.verb,
    isResourceRequest: true,
    path: values.path ?? '',
    apiGroup: values.apiGroup,
    apiVersion: values.apiVersion,
    resource: values.resource,
    subresource: values.subresource ?? '',
    namespace: values.namespace ?? '',
    name: values.name ?? '',
  };
  if (values.fieldSelector) attrs.fieldSelector = values.fieldSelector;
  if (values.labelSelector) attrs.labelSelector = values.labelSelector;
  return attrs;
}

/** A request outside the API groups: its verb is the lowercase HTTP method. */
export function nonResourceAttributes(user: UserInfo, verb: string, path: string): AuthorizationAttributes {
  return { user, verb, isResourceRequest: false, path, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
}

/**
 * A raw field selector as authorizers see it: its requirements, or the parse error (kube
 * keeps the error next to empty requirements instead of failing the request here; the
 * handler answers a bad selector with 400 later). Undefined when it selects nothing.
 */
export function fieldSelectorAttribute(raw: string | undefined): SelectorAttribute<FieldRequirement> | undefined {
  if (!raw) return undefined;
  try {
    const requirements = parseFieldSelector(raw).requirements;
    return requirements.length ? { requirements } : undefined;
  } catch (err) {
    if (err instanceof SelectorParseError) return { requirements: [], error: err.message };
    throw err;
  }
}

/** The label-selector counterpart of fieldSelectorAttribute. */
export function labelSelectorAttribute(raw: string | undefined): SelectorAttribute<LabelRequirement> | undefined {
  if (!raw) return undefined;
  try {
    const requirements = parseLabelSelector(raw).requirements;
    return requirements.length ? { requirements } : undefined;
  } catch (err) {
    if (err instanceof SelectorParseError) return { requirements: [], error: err.message };
    throw err;
  }
}
