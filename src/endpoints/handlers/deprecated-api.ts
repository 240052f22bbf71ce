import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { releaseText } from '../../apimachinery/release';
import { recordDeprecatedApiRequest } from '../../metrics/request-metrics';
import { RequestScope } from '../request/request-scope';
import { addAuditAnnotation } from '../../audit/audit-context';
import { apiVersionOf } from '../../runtime/schema/resource-type';
import { deprecatedAt, deprecationWarning } from '../../registry/resources/api-versions';
import { ResourceRegistry } from '../../registry/resources/registry';
import { addWarning } from './warnings';

export const DEPRECATED_ANNOTATION = 'platform.io/deprecated';
export const REMOVED_RELEASE_ANNOTATION = 'platform.io/removed-release';

/**
 * What the generic layer does for a request to a kind served in a deprecated version, as
 * kube's installer does: the `Warning: 299` header, the `apiserver_requested_deprecated_apis`
 * gauge, and the audit event's `platform.io/deprecated` and `platform.io/removed-release`
 * annotations.
 */
@Injectable()
export class DeprecatedApiNotice {
  constructor(private readonly registry: ResourceRegistry) {}

  /** Notes a request for `kind`, resolved from the request's path by the options stage. */
  note(scope: RequestScope, res: Response, kind: string): void {
    const { info } = scope;
    if (!info.isResourceRequest) return;
    const group = info.apiPrefix === 'api' ? '' : info.apiGroup;
    const lifecycle = this.registry.lifecycle(group, info.apiVersion);
    if (!lifecycle || !deprecatedAt(lifecycle)) return;
    const removedRelease = lifecycle.removed ? releaseText(lifecycle.removed) : '';
    addAuditAnnotation(scope.audit, DEPRECATED_ANNOTATION, 'true');
    if (removedRelease) addAuditAnnotation(scope.audit, REMOVED_RELEASE_ANNOTATION, removedRelease);
    recordDeprecatedApiRequest({ group, version: info.apiVersion, resource: info.resource, subresource: info.subresource, removedRelease });
    const text = deprecationWarning(info.aliasApiVersion ?? apiVersionOf({ group, version: info.apiVersion }), kind, lifecycle);
    if (text) addWarning(res, text);
  }
}
