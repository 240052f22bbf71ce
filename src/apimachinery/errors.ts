import { FieldError, fieldErrorBody, fieldErrorMessage } from './field-errors';
import { GroupResource, groupResourceString, Status, StatusDetails } from './types';

/**
 * An error that reaches the client as a Kubernetes Status. Every failure the server
 * reports goes through one of the factories below so code, reason and message match
 * kube-apiserver's.
 */
export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'StatusError';
  }

  toStatus(): Status {
    const status: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    // Details given are written even when empty (`"details":{}`), as kube writes them.
    if (this.details) status.details = this.details;
    return status;
  }
}

export function successStatus(details?: StatusDetails): Status {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 };
  if (details) status.details = details;
  return status;
}

export const errors = {
  notFound(gr: GroupResource, name: string): StatusError {
    return new StatusError(404, 'NotFound', `${groupResourceString(gr)} "${name}" not found`, {
      name,
      group: gr.group || undefined,
      kind: gr.resource,
    });
  },

  alreadyExists(gr: GroupResource, name: string): StatusError {
    return new StatusError(409, 'AlreadyExists', `${groupResourceString(gr)} "${name}" already exists`, {
      name,
      group: gr.group || undefined,
      kind: gr.resource,
    });
  },

  conflict(gr: GroupResource, name: string, why: string): StatusError {
    return new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${groupResourceString(gr)} "${name}": ${why}`, {
      name,
      group: gr.group || undefined,
      kind: gr.resource,
    });
  },

  /** The optimistic-concurrency conflict. */
  staleResourceVersion(gr: GroupResource, name: string): StatusError {
    return errors.conflict(gr, name, 'the object has been modified; please apply your changes to the latest version and try again');
  },

  /** 422 Invalid; `kind` is the Kind (e.g. `Role`), `group` its API group. */
  invalid(kind: string, group: string, name: string, fieldErrs: FieldError[]): StatusError {
    const qualified = group ? `${kind}.${group}` : kind;
    const messages = fieldErrs.map(fieldErrorMessage);
    const summary = messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
    return new StatusError(422, 'Invalid', `${qualified} "${name}" is invalid: ${summary}`, {
      name,
      group: group || undefined,
      kind,
      causes: fieldErrs.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field })),
    });
  },

  badRequest(message: string, details?: StatusDetails): StatusError {
    return new StatusError(400, 'BadRequest', message, details);
  },

  methodNotSupported(gr: GroupResource, action: string): StatusError {
    return new StatusError(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${groupResourceString(gr)}"`, {
      group: gr.group || undefined,
      kind: gr.resource,
    });
  },

  methodNotAllowed(): StatusError {
    return new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  },

  unsupportedMediaType(accepted: string[]): StatusError {
    return new StatusError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    );
  },

  notAcceptable(accepted: string[]): StatusError {
    return new StatusError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
  },

  requestEntityTooLarge(limit: number): StatusError {
    return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
  },

  unauthorized(message = 'Unauthorized'): StatusError {
    return new StatusError(401, 'Unauthorized', message);
  },

  forbidden(subject: string, message: string): StatusError {
    return new StatusError(403, 'Forbidden', subject ? `${subject} is forbidden: ${message}` : `forbidden: ${message}`);
  },

  forbiddenResource(gr: GroupResource, name: string, message: string): StatusError {
    const subject = name ? `${groupResourceString(gr)} "${name}"` : groupResourceString(gr);
    return new StatusError(403, 'Forbidden', `${subject} is forbidden: ${message}`, {
      name: name || undefined,
      group: gr.group || undefined,
      kind: gr.resource,
    });
  },

  gone(message: string): StatusError {
    return new StatusError(410, 'Expired', message);
  },

  tooLargeResourceVersion(retryAfterSeconds: number): StatusError {
    return new StatusError(
      504,
      'Timeout',
      'Too large resource version',
      { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds },
      { 'Retry-After': String(retryAfterSeconds) },
    );
  },

  /** kube's NewTooManyRequests: 429 with the wait in the details and in Retry-After. */
  tooManyRequests(message: string, retryAfterSeconds: number): StatusError {
    return new StatusError(429, 'TooManyRequests', message, { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
  },

  /** kube's NewTimeoutError: 504 `Timeout: <message>`; a wait of 0 leaves the details empty and sends no Retry-After. */
  timeout(message: string, retryAfterSeconds = 0): StatusError {
    const headers: Record<string, string> = retryAfterSeconds > 0 ? { 'Retry-After': String(retryAfterSeconds) } : {};
    return new StatusError(504, 'Timeout', `Timeout: ${message}`, retryAfterSeconds > 0 ? { retryAfterSeconds } : {}, headers);
  },

  pathNotFound(): StatusError {
    return new StatusError(404, 'NotFound', 'the server could not find the requested resource');
  },

  internal(message: string): StatusError {
    return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`);
  },

  serviceUnavailable(message: string): StatusError {
    return new StatusError(503, 'ServiceUnavailable', message);
  },
};
