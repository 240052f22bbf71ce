import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { releaseText } from '../../apimachinery/release';
import { recordDeprecatedApiRequest } from '../../metrics/request-metrics';
import { ApiRequest } from '../request/request-context';
import { apiVersionOf } from '../../runtime/schema/resource-type';
import { deprecatedAt, deprecationWarning } from '../../registry/resources/api-versions';
import { ResourceRegistry } from '../../registry/resources/registry';
import { addWarning } from './warnings';

/**
 * What the generic layer does for a request to a kind served in a deprecated version, as
 * kube's installer does: the `Warning: 299` header, the `apiserver_requested_deprecated_apis`
 * gauge, and the request's `apiDeprecation` field, from which the audit event takes its
 * `platform.io/deprecated` and `platform.io/removed-release` annotations.
 */
@Injectable()
export class DeprecatedApiNotice {
  constructor(private readonly registry: ResourceRegistry) {}

  /** Notes a request for `kind`, resolved from the request's path by the options stage. */
  note(req: ApiRequest, kind: string): void {
    const info = req.requestInfo;
    if (!info?.isResourceRequest) return;
    const group = info.apiPrefix === 'api' ? '' : info.apiGroup;
    const lifecycle = this.registry.lifecycle(group, info.apiVersion);
    if (!lifecycle || !deprecatedAt(lifecycle)) return;
    const removedRelease = lifecycle.removed ? releaseText(lifecycle.removed) : '';
    req.apiDeprecation = { removedRelease };
    recordDeprecatedApiRequest({ group, version: info.apiVersion, resource: info.resource, subresource: info.subresource, removedRelease });
    const text = deprecationWarning(info.aliasApiVersion ?? apiVersionOf({ group, version: info.apiVersion }), kind, lifecycle);
    if (text && req.res) addWarning(req.res as Response, text);
  }
}
