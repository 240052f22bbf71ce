import type { Request } from 'express';
import { StatusError } from '../../../src/apimachinery/errors';
import { UserInfo } from '../../../src/apimachinery/user-info';
import { Authenticator } from '../../../src/authentication/authenticator';
import { AuthenticationStrategy } from '../../../src/authentication/strategy/authentication-strategy';
import { bearerToken } from '../../../src/authentication/strategy/bearer-token';

/** A token method that answers later, in the order the test releases the requests. */
class DeferredTokenStrategy extends AuthenticationStrategy {
  readonly name = 'deferred';
  readonly pending: Array<() => void> = [];

  authenticate(req: Request): void {
    const token = bearerToken(req);
    if (token === undefined) return this.pass();
    this.pending.push(() => {
      if (token === 'broken') this.error(new Error('token store unavailable'));
      else if (token.startsWith('user-')) this.success({ username: token.slice(5), groups: [] });
      else this.fail('invalid bearer token', 401);
    });
  }
}

const request = (token?: string) => ({ headers: token ? { authorization: `Bearer ${token}` } : {}, socket: {} }) as unknown as Request;

async function settled(promise: UserInfo | Promise<UserInfo>): Promise<string> {
  try {
    return (await promise).username;
  } catch (err) {
    return err instanceof StatusError ? `${err.code}` : (err as Error).message;
  }
}

describe('authentication union', () => {
  const tokens = new Map<string, UserInfo>([['static-token', { username: 'carol', groups: ['ops'] }]]);

  it('answers from strategies that answer at once, request after request', async () => {
    const union = new Authenticator({ anonymous: true, staticTokens: tokens });
    for (let i = 0; i < 3; i++) {
      expect(await union.authenticate(request('static-token'))).toEqual({ username: 'carol', groups: ['ops', 'system:authenticated'] });
      expect(await settled(union.authenticate(request('wrong')))).toBe('401');
      expect((await union.authenticate(request())).username).toBe('system:anonymous');
    }
  });

  it('gives each of several concurrent requests to a later-answering strategy its own answer', async () => {
    const deferred = new DeferredTokenStrategy();
    const union = new Authenticator({ anonymous: false });
    union.register(deferred);
    const answers = ['user-alice', 'bad', 'user-bob', 'broken'].map((t) => settled(union.authenticate(request(t))));
    expect(deferred.pending).toHaveLength(4);
    // Released out of order: each answer still reaches the request that asked.
    for (const i of [2, 0, 3, 1]) deferred.pending[i]();
    expect(await Promise.all(answers)).toEqual(['alice', '401', 'bob', 'token store unavailable']);
    // The bindings are reused afterwards and still answer the right request.
    const again = [settled(union.authenticate(request('user-dave'))), settled(union.authenticate(request('user-erin')))];
    deferred.pending[5]();
    deferred.pending[4]();
    expect(await Promise.all(again)).toEqual(['dave', 'erin']);
  });

  it('asks the token methods for a TokenReview, never the certificate', async () => {
    const union = new Authenticator({ anonymous: true, staticTokens: tokens });
    expect(await union.authenticateToken('static-token', undefined)).toEqual({
      authenticated: true,
      user: { username: 'carol', groups: ['ops', 'system:authenticated'] },
      audiences: [],
    });
    expect(await union.authenticateToken('nope', ['api'])).toEqual({ authenticated: false, error: '[invalid bearer token]' });
  });
});
