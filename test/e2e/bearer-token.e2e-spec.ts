import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, TestServer } from '../support/test-server';
import { writeTokenFile } from '../support/token-file';

/**
 * Each shape of bearer credential and kube's answer to it (request/bearertoken and
 * request/websocket): a token that authenticates nobody is 401, never anonymous; a header that
 * presents no bearer token at all leaves the request to the other methods, here anonymous.
 * `/version` is open to anonymous callers, the namespace list is not.
 */
type Answer = 'admin' | 'anonymous' | 'unauthorized';

const ADMIN_TOKEN = 'root-token';
const WEBSOCKET = { Connection: 'Upgrade', Upgrade: 'websocket' };
const tokenProtocol = (token: string) => `base64url.bearer.authorization.k8s.io.${Buffer.from(token).toString('base64url')}`;

const CASES: Array<[string, Record<string, string>, Answer]> = [
  ['Bearer <token>', { Authorization: `Bearer ${ADMIN_TOKEN}` }, 'admin'],
  ['bearer <token> (scheme in lower case)', { Authorization: `bearer ${ADMIN_TOKEN}` }, 'admin'],
  ['BEARER <token>', { Authorization: `BEARER ${ADMIN_TOKEN}` }, 'admin'],
  ['Bearer <token> <more words> (the second part is the token)', { Authorization: `Bearer ${ADMIN_TOKEN} trailing words` }, 'admin'],
  ['white space around the value', { Authorization: `  Bearer ${ADMIN_TOKEN}  ` }, 'admin'],
  ['Bearer <unknown token>', { Authorization: 'Bearer no-such-token' }, 'unauthorized'],
  ['Bearer <unknown token> <valid token>', { Authorization: `Bearer no-such-token ${ADMIN_TOKEN}` }, 'unauthorized'],
  ['Bearer abc def (an unknown token, words after it)', { Authorization: 'Bearer abc def' }, 'unauthorized'],
  ['Bearer alone', { Authorization: 'Bearer' }, 'anonymous'],
  ['Bearer and a space', { Authorization: 'Bearer ' }, 'anonymous'],
  ['Bearer, two spaces, <token> (an empty token)', { Authorization: `Bearer  ${ADMIN_TOKEN}` }, 'anonymous'],
  ['Bearer, a tab, <token> (one part)', { Authorization: `Bearer\t${ADMIN_TOKEN}` }, 'anonymous'],
  ['Basic credentials', { Authorization: `Basic ${Buffer.from('admin:secret').toString('base64')}` }, 'anonymous'],
  ['another scheme', { Authorization: `Token ${ADMIN_TOKEN}` }, 'anonymous'],
  ['only spaces', { Authorization: '   ' }, 'anonymous'],
  ['a WebSocket handshake with a token subprotocol', { ...WEBSOCKET, 'Sec-WebSocket-Protocol': `${tokenProtocol(ADMIN_TOKEN)}, v4.channel.k8s.io` }, 'admin'],
  ['a WebSocket handshake with an unknown token subprotocol', { ...WEBSOCKET, 'Sec-WebSocket-Protocol': `${tokenProtocol('no-such-token')}, v4.channel.k8s.io` }, 'unauthorized'],
  ['a WebSocket handshake with only the token subprotocol', { ...WEBSOCKET, 'Sec-WebSocket-Protocol': tokenProtocol(ADMIN_TOKEN) }, 'unauthorized'],
  ['a WebSocket handshake with a token not in base64url', { ...WEBSOCKET, 'Sec-WebSocket-Protocol': 'base64url.bearer.authorization.k8s.io.!!, v4.channel.k8s.io' }, 'unauthorized'],
  ['a token subprotocol outside a WebSocket handshake', { 'Sec-WebSocket-Protocol': `${tokenProtocol(ADMIN_TOKEN)}, v4.channel.k8s.io` }, 'anonymous'],
];

const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

describe('bearer tokens, parsed as kube parses them', () => {
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bearer-tokens-'));
    server = await startTestServer({ options: { tokenAuthFile: writeTokenFile(dir, [`${ADMIN_TOKEN},root,uid-root,"system:masters"`]) } });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(CASES)('%s', async (_shape, headers, answer) => {
    const version = await server.anonymous.get('/version', { headers });
    const namespaces = await server.anonymous.get('/api/v1/namespaces', { headers });
    if (answer === 'unauthorized') {
      expect([version.status, namespaces.status]).toEqual([401, 401]);
      expect(version.body).toEqual(UNAUTHORIZED);
      expect(namespaces.body).toEqual(UNAUTHORIZED);
    } else if (answer === 'admin') {
      expect([version.status, namespaces.status]).toEqual([200, 200]);
    } else {
      expect([version.status, namespaces.status]).toEqual([200, 403]);
      expect(namespaces.body.message).toBe('namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope');
    }
  });

  it('reads no token from the access_token query parameter (kube has no such authenticator)', async () => {
    const res = await server.anonymous.get(`/api/v1/namespaces?access_token=${ADMIN_TOKEN}`);
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('User "system:anonymous"');
  });

  it('reviews a token as given, spaces and all, not as a header would cut it', async () => {
    const review = (token: string) =>
      server.admin.post('/apis/authentication.platform.io/v1/tokenreviews', { apiVersion: 'authentication.platform.io/v1', kind: 'TokenReview', spec: { token } });
    expect((await review(ADMIN_TOKEN)).body.status).toMatchObject({ authenticated: true, user: { username: 'root' } });
    expect((await review(`${ADMIN_TOKEN} trailing`)).body.status.authenticated).toBeFalsy();
  });
});
