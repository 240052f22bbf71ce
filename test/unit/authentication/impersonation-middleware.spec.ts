import { StatusError } from '../../../src/apimachinery/errors';
import { ApiRequest } from '../../../src/api/request/request-context';
import { ImpersonationMiddleware } from '../../../src/authentication/impersonation.middleware';
import { AuthorizationAttributes, AuthorizationResult } from '../../../src/authorization/authorizer';
import { AuthorizerChain } from '../../../src/authorization/authorizer-chain';

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
  return { rawHeaders: [...rawHeaders], headers, userInfo: { username: 'alice', groups: ['system:authenticated'] } } as unknown as ApiRequest;
}

describe('impersonation middleware', () => {
  it('switches the caller once every part is allowed, and removes the headers', async () => {
    const authorizer = chain(() => true);
    const req = request(['Accept', 'application/json', 'Impersonate-User', 'bob', 'Impersonate-Group', 'a', 'Impersonate-Group', 'b', 'Impersonate-Extra-Scopes', 'x']);
    const next = jest.fn();
    await new ImpersonationMiddleware(authorizer).use(req, {} as never, next);
    expect(next).toHaveBeenCalled();
    expect(req.userInfo).toEqual({ username: 'bob', groups: ['a', 'b', 'system:authenticated'], extra: { scopes: ['x'] } });
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
    const refused = new ImpersonationMiddleware(chain((a) => a.resource === 'users')).use(req, {} as never, next);
    await expect(refused).rejects.toThrow(StatusError);
    await expect(refused).rejects.toMatchObject({
      code: 403,
      message: 'groups "ops" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope: no binding',
    });
    expect(next).not.toHaveBeenCalled();
    expect(req.userInfo?.username).toBe('alice');
  });

  it('leaves requests without impersonation headers alone', async () => {
    const req = request(['Accept', 'application/json']);
    const next = jest.fn();
    await new ImpersonationMiddleware(chain(() => false)).use(req, {} as never, next);
    expect(next).toHaveBeenCalled();
    expect(req.userInfo?.username).toBe('alice');
  });

  it('answers a group without a user with 400', async () => {
    const refused = new ImpersonationMiddleware(chain(() => true)).use(request(['Impersonate-Group', 'g']), {} as never, jest.fn());
    await expect(refused).rejects.toMatchObject({ code: 400, reason: 'BadRequest', message: 'requested [{Group  g    }] without impersonating a user' });
  });
});
