import { UserInfo } from '../apimachinery/user-info';
import { forbiddenError } from './forbidden';
import { AuthorizationAttributes, AuthorizationResult } from './authorizer';
import { resourceAttributes } from './request-attributes';
import type { CreatePermissionCheck } from '../registry/generic/generic-storage';
import type { Target } from '../registry/rest/storage';

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

/**
 * The generic storage's create check (it asks before a PUT or an apply creates a missing
 * object): an authorizer (the server's chain) asked with the request's attributes and verb `create`.
 */
export function createPermissionCheck(authorizer: { authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> }): CreatePermissionCheck {
  return async (target, user) => {
    const attrs = createAttributes(target, user);
    const result = await authorizer.authorize(attrs);
    if (result.decision !== 'Allow') throw forbiddenError(attrs, result.reason);
  };
}
