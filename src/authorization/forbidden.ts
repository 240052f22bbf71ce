import { errors, StatusError } from '../apimachinery/errors';
import { AuthorizationAttributes } from './authorizer';

/** kube's forbidden message for a denied request, plus the authorizer's reason. */
export function forbiddenError(attrs: AuthorizationAttributes, reason?: string): StatusError {
  const user = attrs.user.username;
  const why = reason ? `: ${reason}` : '';
  if (!attrs.isResourceRequest) return errors.forbidden('', `User "${user}" cannot ${attrs.verb} path "${attrs.path}"${why}`);
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const scope = attrs.namespace ? `in the namespace "${attrs.namespace}"` : 'at the cluster scope';
  const message = `User "${user}" cannot ${attrs.verb} resource "${resource}" in API group "${attrs.apiGroup}" ${scope}${why}`;
  return errors.forbiddenResource({ group: attrs.apiGroup, resource: attrs.resource }, attrs.name, message);
}
