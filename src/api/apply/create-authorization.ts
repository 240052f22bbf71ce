import { UserInfo } from '../../apimachinery/user-info';
import { forbiddenError } from '../../authorization/authorization.guard';
import { AuthorizationAttributes, AuthorizationResult } from '../../authorization/authorizer';
import { resourceAttributes } from '../../authorization/request-attributes';
import type { Target } from '../resources/storage';

/**
 * Asks whether the caller of a write that would create an object may create it; throws
 * kube's 403 when not. The generic storage calls it when a PUT or an apply (authorized as
 * `update` or `patch`) finds no object and creates one, as kube wraps the create
 * validation of those requests in a `create` authorization check.
 */
export type CreatePermissionCheck = (target: Target, user: UserInfo) => Promise<void>;

/** The path of the object a write targets, as the request named it. */
function objectPath(target: Target): string {
  const { type } = target;
  const base = type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`;
  const scope = type.namespaced && target.namespace ? `/namespaces/${target.namespace}` : '';
  return `${base}${scope}/${target.groupResource.resource}/${target.name}`;
}

export function createAttributes(target: Target, user: UserInfo): AuthorizationAttributes {
  return resourceAttributes({
    user,
    verb: 'create',
    path: objectPath(target),
    apiGroup: target.type.group,
    apiVersion: target.type.version,
    resource: target.groupResource.resource,
    namespace: target.type.namespaced ? target.namespace : '',
    name: target.name,
  });
}

/** The check, asking an authorizer (the server's chain) with the request's attributes and verb `create`. */
export function createPermissionCheck(authorizer: { authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> }): CreatePermissionCheck {
  return async (target, user) => {
    const attrs = createAttributes(target, user);
    const result = await authorizer.authorize(attrs);
    if (result.decision !== 'Allow') throw forbiddenError(attrs, result.reason);
  };
}
