import type { UserInfo } from '../../src/apimachinery/user-info';
import type { AuditRecord } from '../../src/audit/audit-context';
import { resolveRequestInfo } from '../../src/endpoints/request/request-info';
import type { RequestScope } from '../../src/endpoints/request/request-scope';
import { SERVER_CAPABILITIES } from '../../src/runtime/serializer/negotiation';

/** The scope the request chain gives a request by the time it is authenticated, for unit tests of single stages. */
export function scopeFor(
  method: string,
  url: string,
  user: UserInfo = { username: 'someone', groups: ['system:authenticated'] },
  options: { query?: Record<string, string>; audit?: AuditRecord } = {},
): RequestScope {
  return Object.freeze({
    receivedAt: 0,
    auditId: 'test-audit-id',
    info: resolveRequestInfo(method, url, options.query ?? {}),
    deadline: undefined,
    rendering: SERVER_CAPABILITIES,
    user,
    authenticatedUser: user,
    audit: options.audit,
  });
}
