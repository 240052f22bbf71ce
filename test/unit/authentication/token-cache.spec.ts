import { TokenCache } from '../../../src/authentication/strategy/token-cache';

describe('the token cache', () => {
  let now = 1_000_000;
  let revision = '5';
  const clock = { now: () => now };
  const alice = { username: 'alice', groups: ['dev'] };
  beforeEach(() => {
    now = 1_000_000;
    revision = '5';
  });

  it('keeps a success for the TTL while the store has not changed, and hands out copies', () => {
    const cache = new TokenCache(10_000, () => revision, clock);
    cache.set('tok', alice, '5');
    const got = cache.get('tok')!;
    expect(got).toEqual(alice);
    got.groups.push('admin');
    expect(cache.get('tok')).toEqual(alice);
    now += 9_999;
    expect(cache.get('tok')).toEqual(alice);
    now += 1;
    expect(cache.get('tok')).toBeUndefined();
  });

  it('forgets a success once the store has changed since the token was checked', () => {
    const cache = new TokenCache(10_000, () => revision, clock);
    cache.set('tok', alice, '5');
    revision = '6';
    expect(cache.get('tok')).toBeUndefined();
    revision = '5';
    expect(cache.get('tok')).toBeUndefined();
  });

  it('keeps no success past the credential\'s own expiry', () => {
    const cache = new TokenCache(10_000, () => revision, clock);
    cache.set('jwt', alice, '5', now + 3_000);
    cache.set('expired', alice, '5', now);
    now += 2_999;
    expect([cache.get('jwt'), cache.get('expired')]).toEqual([alice, undefined]);
    now += 1;
    expect(cache.get('jwt')).toBeUndefined();
  });
});
