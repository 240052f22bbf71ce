import { StatusError } from '../../../src/apimachinery/errors';
import { openAuditRecord } from '../../../src/audit/audit-context';
import { scopeFor } from '../../support/request-scope';
import { ApiRequest } from '../../../src/endpoints/request/request-scope';
import { ImpersonationMiddleware } from '../../../src/endpoints/filters/impersonation.middleware';
import { AuthorizationAttributes, AuthorizationResult } from '../../../src/authorization/authorizer';
import { AuthorizerChain } from '../../../src/authorization/authorizer-chain';
import { FeatureGates } from '../../../src/config/feature-gates';

/** A chain that allows what `allow` says and records what it was asked. */
function chain(allow: (attrs: AuthorizationAttributes) => boolean): AuthorizerChain & { asked: AuthorizationAttributes[] } {
  const asked: AuthorizationAttributes[] = [];
  return {
    asked,
    authorize: async (attrs: AuthorizationAttributes): Promise<AuthorizationResult> => {
      asked.push(attrs);
      return allow(attrs) ? { decision: 'Allow' } : { decision: 'NoOpinion', reason: 'no binding' };
    },
  } as unknown as AuthorizerChain & { asked: AuthorizationAttributes[] };
}

function request(rawHeaders: string[]): ApiRequest {
  const headers: Record<string, string> = {};
  for (let i = 0; i < rawHeaders.length; i += 2) headers[rawHeaders[i].toLowerCase()] = rawHeaders[i + 1];
  return { rawHeaders: [...rawHeaders], headers, query: {}, scope: scopeFor('GET', '/api', { username: 'alice', groups: ['system:authenticated'] }) } as unknown as ApiRequest;
}

/** The gate off: kube's WithImpersonation, the `impersonate` verb only. */
const LEGACY = { featureGates: FeatureGates.from({ ConstrainedImpersonation: false }) };

describe('impersonation middleware (ConstrainedImpersonation off)', () => {
  it('switches the caller once every part is allowed, and removes the headers', async () => {
    const authorizer = chain(() => true);
    const req = request(['Accept', 'application/json', 'Impersonate-User', 'bob', 'Impersonate-Group', 'a', 'Impersonate-Group', 'b', 'Impersonate-Extra-Scopes', 'x']);
    const next = jest.fn();
    await new ImpersonationMiddleware(authorizer, LEGACY).use(req, {} as never, next);
    expect(next).toHaveBeenCalled();
    expect(req.scope.user).toEqual({ username: 'bob', groups: ['a', 'b', 'system:authenticated'], extra: { scopes: ['x'] } });
    expect(authorizer.asked.map((a) => [a.user.username, a.verb, a.resource, a.name])).toEqual([
      ['alice', 'impersonate', 'users', 'bob'],
      ['alice', 'impersonate', 'groups', 'a'],
      ['alice', 'impersonate', 'groups', 'b'],
      ['alice', 'impersonate', 'userextras', 'x'],
    ]);
    expect(req.headers).toEqual({ accept: 'application/json' });
    expect(req.rawHeaders).toEqual(['Accept', 'application/json']);
  });

  it('refuses with the first part that is not allowed, keeping the caller', async () => {
    const req = request(['Impersonate-User', 'bob', 'Impersonate-Group', 'ops']);
    const next = jest.fn();
    const refused = new ImpersonationMiddleware(chain((a) => a.resource === 'users'), LEGACY).use(req, {} as never, next);
    await expect(refused).rejects.toThrow(StatusError);
    await expect(refused).rejects.toMatchObject({
      code: 403,
      message: 'groups "ops" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope: no binding',
    });
    expect(next).not.toHaveBeenCalled();
    expect(req.scope.user.username).toBe('alice');
  });

  it('leaves requests without impersonation headers alone', async () => {
    const req = request(['Accept', 'application/json']);
    const next = jest.fn();
    await new ImpersonationMiddleware(chain(() => false), LEGACY).use(req, {} as never, next);
    expect(next).toHaveBeenCalled();
    expect(req.scope.user.username).toBe('alice');
  });

  it('answers a group without a user with 400', async () => {
    const refused = new ImpersonationMiddleware(chain(() => true), LEGACY).use(request(['Impersonate-Group', 'g']), {} as never, jest.fn());
    await expect(refused).rejects.toMatchObject({ code: 400, reason: 'BadRequest', message: 'requested [{Group  g    }] without impersonating a user' });
  });
});

describe('impersonation middleware (ConstrainedImpersonation on)', () => {
  const CONSTRAINED = { featureGates: FeatureGates.defaults() };
  /** A get of a pod in ns1, asking to impersonate. */
  function podRequest(rawHeaders: string[]): ApiRequest {
    const req = request(rawHeaders);
    req.scope = scopeFor('GET', '/api/v1/namespaces/ns1/pods/p', req.scope.user, { audit: openAuditRecord('Metadata') });
    return req;
  }

  it('asks impersonate-on for the request and impersonate:user-info for the user, and records the constraint', async () => {
    const authorizer = chain((a) => a.verb === 'impersonate-on:user-info:get' || a.verb === 'impersonate:user-info');
    const req = podRequest(['Impersonate-User', 'bob']);
    const next = jest.fn();
    await new ImpersonationMiddleware(authorizer, CONSTRAINED).use(req, {} as never, next);
    expect(next).toHaveBeenCalled();
    expect(req.scope.user).toEqual({ username: 'bob', groups: ['system:authenticated'] });
    expect(authorizer.asked.map((a) => [a.verb, a.apiGroup, a.resource, a.namespace, a.name])).toEqual([
      ['impersonate-on:user-info:get', '', 'pods', 'ns1', 'p'],
      ['impersonate:user-info', 'authentication.platform.io', 'users', '', 'bob'],
    ]);
    expect(req.scope.audit?.impersonationConstraint).toBe('impersonate:user-info');
    expect(req.rawHeaders).toEqual([]);
  });

  it('falls back to the legacy verb, which records no constraint', async () => {
    const req = podRequest(['Impersonate-User', 'bob']);
    await new ImpersonationMiddleware(chain((a) => a.verb === 'impersonate'), CONSTRAINED).use(req, {} as never, jest.fn());
    expect(req.scope.user.username).toBe('bob');
    expect(req.scope.audit?.impersonationConstraint).toBeUndefined();
  });

  it('answers with the first refusal when no mode allows', async () => {
    const refused = new ImpersonationMiddleware(chain(() => false), CONSTRAINED).use(podRequest(['Impersonate-User', 'bob']), {} as never, jest.fn());
    await expect(refused).rejects.toMatchObject({
      code: 403,
      message: 'pods "p" is forbidden: User "alice" cannot impersonate-on:user-info:get resource "pods" in API group "" in the namespace "ns1": no binding',
    });
  });

  it('answers a group without a user with kube 1.36 400', async () => {
    const refused = new ImpersonationMiddleware(chain(() => true), CONSTRAINED).use(podRequest(['Impersonate-Group', 'g']), {} as never, jest.fn());
    await expect(refused).rejects.toMatchObject({
      code: 400,
      message: 'requested &user.DefaultInfo{Name:"", UID:"", Groups:[]string{"g"}, Extra:map[string][]string(nil)} without impersonating a user name',
    });
  });
});
