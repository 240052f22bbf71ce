import type { Request } from 'express';
import { Authenticator } from '../../../src/authentication/authenticator';
import { FlagError, parseServerFlags } from '../../../src/config/flags';
import { removeIdentityHeaders, STANDARD_REQUEST_HEADERS, userFromHeaders } from '../../../src/authentication/request-header/request-header';

const names = { usernameHeaders: ['X-Remote-User', 'X-Other-User'], uidHeaders: ['X-Remote-Uid'], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'] };

describe('authenticating proxy headers', () => {
  it('takes the first non-empty username header, every group value and the uid', () => {
    const user = userFromHeaders({ 'x-remote-user': [''], 'x-other-user': ['alice', 'bob'], 'x-remote-uid': ['u-1'], 'x-remote-group': ['g1', '', 'g2'] }, names);
    expect(user).toEqual({ username: 'alice', uid: 'u-1', groups: ['g1', 'g2'] });
  });

  it('is no identity without a username header', () => {
    expect(userFromHeaders({ 'x-remote-group': ['g1'] }, names)).toBeNull();
  });

  it('lowercases extra keys, then percent-decodes them; undecodable keys stay as sent', () => {
    const user = userFromHeaders(
      { 'x-remote-user': ['alice'], 'x-remote-extra-scopes': ['a', 'b'], 'x-remote-extra-example.org%2fteam': ['x'], 'x-remote-extra-%41cme': ['y'], 'x-remote-extra-bad%zz': ['z'] },
      names,
    );
    expect(user?.extra).toEqual({ scopes: ['a', 'b'], 'example.org/team': ['x'], Acme: ['y'], 'bad%zz': ['z'] });
  });

  it('removes the configured headers and extra prefixes, case-insensitively', () => {
    const headers: Record<string, unknown> = { 'x-remote-user': 'a', 'x-remote-group': 'g', 'x-remote-extra-k': 'v', 'x-remote-uid': 'u', accept: 'json' };
    removeIdentityHeaders(headers, STANDARD_REQUEST_HEADERS);
    expect(headers).toEqual({ accept: 'json' });
  });
});

describe('--requestheader-* and --authentication-token-webhook-* flags', () => {
  it('defaults: proxy off with the standard header names; webhook off, v1, 2m', () => {
    const o = parseServerFlags([], {});
    expect(o.requestHeader).toEqual({ allowedNames: [], usernameHeaders: ['X-Remote-User'], uidHeaders: [], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'] });
    expect(o.authenticationTokenWebhook).toEqual({ version: 'v1', cacheTtlMs: 120_000 });
  });

  it('reads lists (comma-separated and repeated, replacing the default) and the webhook settings', () => {
    const o = parseServerFlags(
      [
        '--requestheader-client-ca-file=proxy-ca.crt',
        '--requestheader-allowed-names=front-proxy,aggregator',
        '--requestheader-username-headers=X-User',
        '--requestheader-username-headers=X-Remote-User',
        '--requestheader-uid-headers=X-Remote-Uid',
        '--authentication-token-webhook-config-file=hook.kubeconfig',
        '--authentication-token-webhook-version=v1beta1',
        '--authentication-token-webhook-cache-ttl=30s',
      ],
      {},
    );
    expect(o.requestHeader).toMatchObject({ clientCaFile: 'proxy-ca.crt', allowedNames: ['front-proxy', 'aggregator'], usernameHeaders: ['X-User', 'X-Remote-User'], uidHeaders: ['X-Remote-Uid'] });
    expect(o.authenticationTokenWebhook).toEqual({ configFile: 'hook.kubeconfig', version: 'v1beta1', cacheTtlMs: 30_000 });
  });

  it.each([
    [['--requestheader-username-headers=X-A,,X-B'], 'invalid argument "X-A,,X-B" for "--requestheader-username-headers" flag: empty value in "requestheader-username-headers"'],
    [['--requestheader-group-headers= '], 'invalid argument " " for "--requestheader-group-headers" flag: empty value in "requestheader-group-headers"'],
    [['--authentication-token-webhook-version=v2'], 'invalid argument "v2" for "--authentication-token-webhook-version" flag: unsupported authentication webhook version "v2", supported versions are "v1", "v1beta1"'],
    [['--authentication-token-webhook-cache-ttl=soon'], /^invalid argument "soon" for "--authentication-token-webhook-cache-ttl" flag: /],
    [['--authentication-token-webhook-config-file='], 'invalid argument "" for "--authentication-token-webhook-config-file" flag: must not be empty'],
  ])('%j is refused naming the flag', (argv, message) => {
    let error: unknown;
    try {
      parseServerFlags(argv, {});
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(FlagError);
    if (typeof message === 'string') expect((error as Error).message).toBe(message);
    else expect((error as Error).message).toMatch(message);
  });
});

describe('the union removes identity headers once a request is authenticated', () => {
  const requestHeader = { clientCaPem: '', allowedNames: [], usernameHeaders: ['X-Custom-User'], uidHeaders: [], groupHeaders: ['X-Custom-Group'], extraHeaderPrefixes: ['X-Custom-Extra-'] };
  const request = () => {
    const headers = { 'x-custom-user': 'mallory', 'x-custom-group': 'system:masters', 'x-custom-extra-k': 'v', 'x-remote-user': 'mallory', 'x-remote-extra-k': 'v', accept: 'json' };
    return { headers, headersDistinct: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])), socket: {} } as unknown as Request;
  };

  it('for anonymous requests (no certificate: the headers named nobody) and token users alike', async () => {
    const authenticator = new Authenticator({ anonymous: true, requestHeader, staticTokens: new Map([['t', { username: 'tina', groups: [] }]]) });
    const anonymous = request();
    expect((await authenticator.authenticate(anonymous)).username).toBe('system:anonymous');
    expect(anonymous.headers).toEqual({ accept: 'json' });
    expect(Object.keys(anonymous.headersDistinct)).toEqual(['x-remote-user', 'x-remote-extra-k', 'accept']);
    const withToken = request();
    withToken.headers.authorization = 'Bearer t';
    expect((await authenticator.authenticate(withToken)).username).toBe('tina');
    expect(withToken.headers).toEqual({ accept: 'json' });
  });
});
