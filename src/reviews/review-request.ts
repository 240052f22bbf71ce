import { FieldManager } from '../runtime/apply/field-manager';
import { managerOrUserAgent } from '../runtime/apply/manager-name';
import { errors, StatusError } from '../apimachinery/errors';
import { FieldError, fieldErrorBody } from '../apimachinery/field-errors';
import { apiVersionOf, ResourceType } from '../runtime/schema/resource-type';
import { Target, WriteOptions } from '../registry/rest/storage';
import { KubeObject, ObjectMeta } from '../apimachinery/types';
import { goQuote, GoSyntax } from '../apimachinery/go-text';
import { ReviewObject } from './review-types';
import { ReviewManagedFields } from './review-managed-fields';
import { nowTimestamp } from '../apimachinery/system-metadata';

/** How one apiVersion of a review kind records managed fields. */
interface VersionFields {
  fields: FieldManager;
  managed: ReviewManagedFields;
}

/**
 * What kube's create handler does to a review's body before the review's storage sees it:
 * the body's apiVersion and kind must be the kind's, the namespace is the request's (a
 * namespaced review defaults to it, a cluster-scoped one drops it), and the write is
 * recorded in managedFields under the request's field manager. Nothing else of the
 * generic create runs: reviews get no name, uid or timestamp and are never stored.
 * A review posted through an alias group/version (kubectl's `authorization.k8s.io/v1`)
 * speaks that apiVersion throughout: the body's, the answer's and its managedFields'.
 */
export class ReviewRequest {
  private readonly byVersion = new Map<string, VersionFields>();

  /**
   * `zero`: the kind's empty object as kube's encoder writes it (a non-pointer struct such
   * as spec is `{}`), which the request's fields are compared with to record them.
   */
  constructor(
    private readonly type: ResourceType,
    private readonly zero: Record<string, unknown> = {},
  ) {}

  /** The review as the storage answers it: checked TypeMeta, namespace, managedFields. */
  decode<Spec>(target: Target, body: Record<string, unknown>, opts: WriteOptions): ReviewObject<Spec> & { metadata: ObjectMeta } {
    this.checkTypeMeta(target, body);
    // The decoded body belongs to this request alone: it becomes the answer as is.
    const review = body as unknown as ReviewObject<Spec> & { metadata: ObjectMeta };
    review.metadata = (review.metadata ?? {}) as ObjectMeta;
    this.placeInNamespace(review.metadata, target);
    const { fields, managed } = this.versionFields(this.apiVersion(target));
    const manager = managerOrUserAgent(opts.fieldManager, opts.userAgent);
    const record = (obj: KubeObject) => fields.update({ ...structuredClone(this.zero), metadata: {} } as KubeObject, obj, manager);
    // Managed fields a client sends are honoured (or reset) by the field manager itself.
    if (review.metadata.managedFields !== undefined) record(review as KubeObject);
    else {
      const entries = managed.of(review as unknown as Record<string, unknown>, manager, nowTimestamp(), () => {
        const copy = structuredClone(review) as KubeObject;
        record(copy);
        return copy.metadata.managedFields;
      });
      if (entries) review.metadata.managedFields = entries;
    }
    return review;
  }

  /** A body only answers the kind (and apiVersion) it is posted to. */
  checkTypeMeta(target: Target, body: Record<string, unknown>): void {
    const apiVersion = this.apiVersion(target);
    if (body.apiVersion !== undefined && body.apiVersion !== apiVersion) {
      throw errors.badRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${apiVersion})`);
    }
    if (body.kind !== undefined && body.kind !== this.type.kind) {
      throw errors.badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${this.type.kind})`);
    }
  }

  /** kube's EnsureObjectNamespaceMatchesRequestNamespace. */
  private placeInNamespace(meta: ObjectMeta, target: Target): void {
    if (!this.type.namespaced) {
      delete meta.namespace;
      return;
    }
    if (!meta.namespace) meta.namespace = target.namespace;
    else if (meta.namespace !== target.namespace) {
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
  }

  /** The review kind as JSON: its TypeMeta first, then the given fields. */
  answer(target: Target, fields: Record<string, unknown>): KubeObject {
    return { kind: this.type.kind, apiVersion: this.apiVersion(target), ...fields } as KubeObject;
  }

  /** The 422 of an invalid review, naming the group the request addressed. */
  invalid(target: Target, errs: FieldError[]): StatusError {
    const apiVersion = this.apiVersion(target);
    return reviewInvalid(apiVersion.slice(0, apiVersion.lastIndexOf('/')), errs);
  }

  private apiVersion(target: Target): string {
    return target.aliasApiVersion ?? apiVersionOf(this.type);
  }

  private versionFields(apiVersion: string): VersionFields {
    let found = this.byVersion.get(apiVersion);
    if (!found) {
      found = { fields: new FieldManager({ apiVersion, schema: this.type.schema }), managed: new ReviewManagedFields(this.type.schema) };
      this.byVersion.set(apiVersion, found);
    }
    return found;
  }
}

/** A field error's text with Go's rendering of the bad value (`%q` strings, `%#v` structs). */
function reviewErrorBody(e: FieldError): string {
  if (e.type !== 'FieldValueInvalid') return fieldErrorBody(e);
  const value = e.badValue instanceof GoSyntax ? e.badValue.text : typeof e.badValue === 'string' ? goQuote(e.badValue) : undefined;
  if (value === undefined) return fieldErrorBody(e);
  return `Invalid value: ${value}${e.detail ? `: ${e.detail}` : ''}`;
}

/**
 * The 422 of an invalid review. kube's review storages name the kind they decoded, which
 * is empty after conversion, so the message reads `.authorization.platform.io "" is invalid`.
 */
export function reviewInvalid(group: string, errs: FieldError[]): StatusError {
  const messages = errs.map((e) => `${e.field}: ${reviewErrorBody(e)}`);
  const summary = messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
  return new StatusError(422, 'Invalid', `.${group} "" is invalid: ${summary}`, {
    group,
    causes: errs.map((e) => ({ reason: e.type, message: reviewErrorBody(e), field: e.field })),
  });
}
