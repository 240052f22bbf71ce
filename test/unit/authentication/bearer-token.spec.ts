import type { Request } from 'express';
import {
  bearerToken,
  malformedBearerToken,
  removeBearerToken,
  tokenOfAuthorizationHeader,
  tokenOfWebSocketProtocols,
  trimGoSpace,
} from '../../../src/authentication/strategy/bearer-token';

/** A header value as Node hands it over: each byte of the raw value one char. */
const raw = (utf8: string) => Buffer.from(utf8, 'utf8').toString('latin1');

const requestWith = (headers: Record<string, string | string[]>, extra: object = {}) => ({ headers: { ...headers }, ...extra }) as unknown as Request;

const WEBSOCKET = { connection: 'Upgrade', upgrade: 'websocket' };
const protocolOf = (token: string, prefix = 'base64url.bearer.authorization.k8s.io.') => prefix + Buffer.from(token, 'utf8').toString('base64url');

describe('the Authorization header, read as kube reads it (request/bearertoken)', () => {
  // undefined: no bearer token, so the request goes on to the other methods (then anonymous).
  it.each<[string, string | undefined, string | undefined]>([
    ['a bearer token', 'Bearer abc', 'abc'],
    ['the scheme in lower case', 'bearer abc', 'abc'],
    ['the scheme in upper case', 'BEARER abc', 'abc'],
    ['the scheme in mixed case', 'BeArEr abc', 'abc'],
    ['white space around the value', ' \t Bearer abc \t ', 'abc'],
    ['words after the token: the second part is the token', 'Bearer abc def', 'abc'],
    ['an invalid token followed by a valid one', 'Bearer bad good', 'bad'],
    ['a lone scheme', 'Bearer', undefined],
    ['a scheme and a trailing space (trimmed)', 'Bearer ', undefined],
    ['two spaces before the token: the second part is empty', 'Bearer  abc', undefined],
    ['a tab between scheme and token: one part', 'Bearer\tabc', undefined],
    ['a non-breaking space between scheme and token: one part', raw('Bearer\u00a0abc'), undefined],
    ['Basic credentials', 'Basic dXNlcjpwYXNz', undefined],
    ['another scheme', 'Token abc', undefined],
    ['a scheme that only starts with bearer', 'Bearerx abc', undefined],
    ['only spaces', '   ', undefined],
    ['an empty value', '', undefined],
    ['no header', undefined, undefined],
    ['Unicode white space trimmed as Go trims it', raw('\u3000Bearer abc\u2003'), 'abc'],
    ['a byte-order mark, which Go does not trim', raw('\ufeffBearer abc'), undefined],
    ['a token with symbols', 'Bearer a.b-c_d~e+f/g=', 'a.b-c_d~e+f/g='],
  ])('%s', (_what, header, token) => {
    expect(tokenOfAuthorizationHeader(header)).toBe(token);
    expect(bearerToken(requestWith(header === undefined ? {} : { authorization: header }))).toBe(token);
  });

  it("trims what Go's strings.TrimSpace trims, and only that", () => {
    expect(trimGoSpace(' \t\n\v\f\rx\r\f\v\n\t ')).toBe('x');
    expect(trimGoSpace(raw('\u0085\u00a0x\u2028\u2029'))).toBe('x');
    expect(trimGoSpace(raw('\u200bx'))).toBe(raw('\u200bx')); // zero-width space: not white space
    expect(trimGoSpace('   ')).toBe('');
  });
});

describe('the WebSocket subprotocol token (request/websocket)', () => {
  it.each<[string, Record<string, string | string[]>, { token: string } | { invalid: string } | undefined]>([
    ['a token subprotocol and another', { ...WEBSOCKET, 'sec-websocket-protocol': `${protocolOf('abc')}, v4.channel.k8s.io` }, { token: 'abc' }],
    ["our domain's spelling", { ...WEBSOCKET, 'sec-websocket-protocol': `v4.channel.k8s.io,${protocolOf('abc', 'base64url.bearer.authorization.platform.io.')}` }, { token: 'abc' }],
    ['repeated headers, as one list', { ...WEBSOCKET, 'sec-websocket-protocol': [protocolOf('abc'), 'v4.channel.k8s.io'] }, { token: 'abc' }],
    ['a token with spaces (the header parsing does not apply)', { ...WEBSOCKET, 'sec-websocket-protocol': `${protocolOf('a b')},x` }, { token: 'a b' }],
    ['only the token subprotocol', { ...WEBSOCKET, 'sec-websocket-protocol': protocolOf('abc') }, { invalid: 'missing additional subprotocol' }],
    ['two token subprotocols', { ...WEBSOCKET, 'sec-websocket-protocol': `${protocolOf('a')},${protocolOf('b')},x` }, { invalid: 'multiple base64.bearer.authorization tokens specified' }],
    ['padded base64', { ...WEBSOCKET, 'sec-websocket-protocol': 'base64url.bearer.authorization.k8s.io.YQ==,x' }, { invalid: 'invalid base64.bearer.authorization token encoding' }],
    ['standard base64 characters', { ...WEBSOCKET, 'sec-websocket-protocol': 'base64url.bearer.authorization.k8s.io.a+b/,x' }, { invalid: 'invalid base64.bearer.authorization token encoding' }],
    ['a token that is not UTF-8', { ...WEBSOCKET, 'sec-websocket-protocol': `base64url.bearer.authorization.k8s.io.${Buffer.from([0xff, 0xfe]).toString('base64url')},x` }, { invalid: 'invalid base64.bearer.authorization token' }],
    ['an empty token', { ...WEBSOCKET, 'sec-websocket-protocol': 'base64url.bearer.authorization.k8s.io.,x' }, undefined],
    ['no token subprotocol', { ...WEBSOCKET, 'sec-websocket-protocol': 'v4.channel.k8s.io' }, undefined],
    ['not a WebSocket handshake (no Upgrade)', { connection: 'Upgrade', 'sec-websocket-protocol': `${protocolOf('abc')},x` }, undefined],
    ['not a WebSocket handshake (Connection without upgrade)', { connection: 'keep-alive', upgrade: 'websocket', 'sec-websocket-protocol': `${protocolOf('abc')},x` }, undefined],
    ['Connection naming upgrade among others', { connection: 'keep-alive, Upgrade', upgrade: 'WebSocket', 'sec-websocket-protocol': `${protocolOf('abc')},x` }, { token: 'abc' }],
  ])('%s', (_what, headers, expected) => {
    const found = tokenOfWebSocketProtocols(headers);
    if (expected === undefined) expect(found).toBeUndefined();
    else expect(found).toMatchObject(expected);
    const req = requestWith(headers);
    expect(bearerToken(req)).toBe(expected && 'token' in expected ? expected.token : undefined);
    expect(malformedBearerToken(req)).toBe(expected && 'invalid' in expected ? expected.invalid : undefined);
  });

  it("reads the Authorization header's token first", () => {
    const req = requestWith({ authorization: 'Bearer from-header', ...WEBSOCKET, 'sec-websocket-protocol': `${protocolOf('from-protocol')},x` });
    expect(bearerToken(req)).toBe('from-header');
  });

  it('removes the used credential: the header, and the token subprotocol leaving the others', () => {
    const req = requestWith({ authorization: 'Basic x', ...WEBSOCKET, 'sec-websocket-protocol': `v4.channel.k8s.io, ${protocolOf('abc')}, v5.channel.k8s.io` });
    removeBearerToken(req);
    expect(req.headers.authorization).toBeUndefined();
    expect(req.headers['sec-websocket-protocol']).toBe('v4.channel.k8s.io,v5.channel.k8s.io');
  });
});

describe('a token under review', () => {
  it('is the token as given, whatever headers the request has', () => {
    expect(bearerToken(requestWith({ authorization: 'Bearer other' }, { presentedToken: ' a token with spaces ' }))).toBe(' a token with spaces ');
  });
});
