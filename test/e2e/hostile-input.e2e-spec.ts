import { HttpResponse } from '../support/https-client';
import { MAX_NESTING_DEPTH } from '../../src/runtime/document/nesting';
import { PATCH_NOT_APPLICABLE } from '../support/status-of';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * Hostile bodies, patches and queries over HTTPS: each is a clear 4xx Status (or stored
 * as kube stores it), nothing refused is written, and the server keeps answering.
 */
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const ROLES = '/apis/rbac.authorization.platform.io/v1/namespaces/default/roles';
const SSAR = '/apis/authorization.platform.io/v1/selfsubjectaccessreviews';
const JSON_PATCH = 'application/json-patch+json';
const MERGE = 'application/merge-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';
const PROTOBUF = 'application/vnd.platform.protobuf';

const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/** The Warning header values as sent, decoded as the UTF-8 bytes they are. */
function warnings(res: HttpResponse): string[] {
  const out: string[] = [];
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    if (res.rawHeaders[i].toLowerCase() === 'warning') out.push(Buffer.from(res.rawHeaders[i + 1], 'latin1').toString('utf8'));
  }
  return out;
}

describe('hostile input', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
    const res = await server.admin.post(CONFIGMAPS, { metadata: { name: 'target' }, data: { k: 'v' } });
    expect(res.status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
  });

  const post = (body: string, contentType = 'application/json', path = CONFIGMAPS) => server.admin.request('POST', path, { raw: body, contentType });
  const patch = (name: string, body: string, contentType: string) =>
    server.admin.request('PATCH', `${CONFIGMAPS}/${name}?fieldManager=hostile`, { raw: body, contentType });
  const target = async () => (await server.admin.get(`${CONFIGMAPS}/target`)).body;
  const absent = async (name: string) => expect((await server.admin.get(`${CONFIGMAPS}/${name}`)).status).toBe(404);

  describe('nesting deeper than the decoders accept', () => {
    it('a JSON body is 400 with the words of Go\'s scanner, and nothing is stored', async () => {
      const res = await post(`{"metadata":{"name":"deep"},"x":${arrays(100_000)}}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        kind: 'Status',
        reason: 'BadRequest',
        message: `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '[' exceeded max depth ({"metadata":{"name":"deep"},"x ...)`,
      });
      await absent('deep');
    });

    it('within the limit, unknown deep content is dropped as kube drops it', async () => {
      const res = await post(`{"metadata":{"name":"deep-ok"},"x":${arrays(MAX_NESTING_DEPTH - 1)}}`);
      expect(res.status).toBe(201);
      expect(res.body).not.toHaveProperty('x');
    });

    it('a YAML body is 400 with the words of go-yaml', async () => {
      const res = await post(`metadata: {name: deep}\nx: ${'['.repeat(50_000)}\n`, 'application/yaml');
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^the object provided is unrecognized \(must be of type ConfigMap\): error converting YAML to JSON: yaml: line 2: exceeded max depth of \d+ \(/);
      await absent('deep');
    });

    it('every patch type and apply refuse a deep patch with 400 and leave the object as it was', async () => {
      const before = await target();
      const deepPatches: Array<[string, string]> = [
        [JSON_PATCH, `[{"op":"add","path":"/data/x","value":${arrays(50_000)}}]`],
        [MERGE, `{"data":{"x":${arrays(50_000)}}}`],
        [SMP, `{"data":{"x":${arrays(50_000)}}}`],
      ];
      for (const [type, body] of deepPatches) {
        const res = await patch('target', body, type);
        expect([type, res.status, res.body.message]).toEqual([type, 400, 'invalid JSON patch']);
      }
      const applied = await patch('target', `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: target}\ndata: {x: ${'['.repeat(50_000)}}\n`, APPLY);
      expect(applied.status).toBe(400);
      expect(applied.body.message).toMatch(/^error decoding YAML: error converting YAML to JSON: yaml: line 4: exceeded max depth of \d+$/);
      expect((await target()).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    });

    it('a JSON patch that builds a document too deep is refused as kube refuses to decode it (422)', async () => {
      // The patch itself is within the limit; its value lands three levels down, one too many.
      const value = arrays(MAX_NESTING_DEPTH - 2);
      const res = await patch('target', `[{"op":"add","path":"/metadata/labels","value":{}},{"op":"add","path":"/metadata/labels/x","value":${value}}]`, JSON_PATCH);
      expect(res.status).toBe(422);
      expect(res.body.message).toMatch(/: couldn't get version\/kind; json parse error: invalid character '\[' exceeded max depth$/);
    });

    it('managedFields nested too deep are refused on write; within the limit they are kept and every format can read them', async () => {
      const fieldsV1 = (depth: number) => '{"f:a":'.repeat(depth) + '{}' + '}'.repeat(depth);
      const body = (name: string, depth: number) =>
        `{"metadata":{"name":"${name}","managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":${fieldsV1(depth)}}]}}`;
      const refused = await post(body('mf-deep', 1000));
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(/json parse error: invalid character '\{' exceeded max depth/);
      await absent('mf-deep');

      expect((await post(body('mf-kept', MAX_NESTING_DEPTH - 6))).status).toBe(201);
      for (const accept of ['application/json', 'application/yaml', PROTOBUF, 'application/json;as=Table;g=meta.platform.io;v=v1']) {
        expect([accept, (await server.admin.get(`${CONFIGMAPS}/mf-kept`, { headers: { Accept: accept } })).status]).toEqual([accept, 200]);
        expect([accept, (await server.admin.get(CONFIGMAPS, { headers: { Accept: accept } })).status]).toEqual([accept, 200]);
      }
    });
  });

  it('a YAML alias bomb posted to an access review is refused at once (go-yaml\'s alias budget)', async () => {
    const lines = ['apiVersion: authorization.platform.io/v1', 'kind: SelfSubjectAccessReview', 'a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i <= 9; i++) lines.push(`a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(',')}]`);
    lines.push('spec: {resourceAttributes: {verb: get, resource: pods}}');
    const res = await post(lines.join('\n'), 'application/yaml', SSAR);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/error converting YAML to JSON: yaml: document contains excessive aliasing/);
  });

  describe('text PostgreSQL cannot hold', () => {
    it('NUL in data and annotation values is stored and read back, as kube keeps it', async () => {
      const res = await post(JSON.stringify({ metadata: { name: 'nul', annotations: { a: 'x\u0000y' } }, data: { k: 'a\u0000b' } }));
      expect(res.status).toBe(201);
      const read = await server.admin.get(`${CONFIGMAPS}/nul`);
      expect([read.body.data, read.body.metadata.annotations]).toEqual([{ k: 'a\u0000b' }, { a: 'x\u0000y' }]);
      const listed = await server.admin.get(CONFIGMAPS);
      expect(listed.body.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'nul').data).toEqual({ k: 'a\u0000b' });
    });

    it('a name with NUL (valid for a Role in kube) is 422 naming the field; the URL finds nothing', async () => {
      const res = await server.admin.post(ROLES, { metadata: { name: 'a\u0000b' }, rules: [] });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({
        reason: 'Invalid',
        message: 'Role.rbac.authorization.platform.io "a\u0000b" is invalid: metadata.name: Invalid value: "a\\u0000b": may not contain a NUL character',
        details: { causes: [{ reason: 'FieldValueInvalid', field: 'metadata.name' }] },
      });
      expect((await server.admin.get(`${ROLES}/a%00b`)).status).toBe(404);
      expect((await server.admin.get('/api/v1/namespaces/a%00b/configmaps')).body.items).toEqual([]);
      expect((await server.admin.delete(`${CONFIGMAPS}/a%00b`)).status).toBe(404);
    });

    it('half a surrogate pair becomes U+FFFD, as Go decodes it', async () => {
      const res = await post('{"metadata":{"name":"surrogate"},"data":{"k":"\\udc00","pair":"\\ud83d\\ude00"}}');
      expect(res.status).toBe(201);
      expect((await server.admin.get(`${CONFIGMAPS}/surrogate`)).body.data).toEqual({ k: '\ufffd', pair: '😀' });
    });
  });

  describe('keys named like inherited members', () => {
    it('are valid data keys, stored and read back like any other', async () => {
      const res = await post('{"metadata":{"name":"keys","labels":{"constructor":"x"}},"data":{"__proto__":"p","constructor":"c","toString":"t"}}');
      expect(res.status).toBe(201);
      const read = JSON.parse((await server.admin.get(`${CONFIGMAPS}/keys`)).text);
      expect(Object.entries(read.data).sort()).toEqual([['__proto__', 'p'], ['constructor', 'c'], ['toString', 't']]);
      expect(read.metadata.labels).toEqual({ constructor: 'x' });
    });

    it('a JSON patch through one is a missing path (422), and changes nothing', async () => {
      const before = await target();
      const res = await patch('target', '[{"op":"add","path":"/metadata/__proto__/x","value":"y"}]', JSON_PATCH);
      expect(res.body).toEqual(PATCH_NOT_APPLICABLE);
      expect((await target()).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
      const merged = await patch('target', '{"data":{"__proto__":"p","hasOwnProperty":"h"}}', MERGE);
      expect(merged.status).toBe(200);
      expect(merged.text).toContain('"__proto__":"p"');
    });
  });

  it('a limit beyond int64 is 400 with strconv\'s words, naming the parameter; one of 0 or less means none', async () => {
    const res = await server.admin.get(`${CONFIGMAPS}?limit=99999999999999999999`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ reason: 'BadRequest', message: 'limit: strconv.ParseInt: parsing "99999999999999999999": value out of range' });
    expect((await server.admin.get(`${CONFIGMAPS}?limit=1e3`)).body.message).toBe('limit: strconv.ParseInt: parsing "1e3": invalid syntax');
    const all = await server.admin.get(`${CONFIGMAPS}?limit=-1`);
    expect([all.status, all.body.metadata.continue]).toEqual([200, undefined]);
    expect((await server.admin.get(`${CONFIGMAPS}?limit=9223372036854775807`)).status).toBe(200);
  });

  it('a strategic merge patch with a number beyond float64 is 400 as kube decodes it', async () => {
    const res = await patch('target', '{"data":{"k":1e400}}', SMP);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('json: cannot unmarshal number 1e400 into Go value of type float64');
  });

  it('an unknown field named beyond Latin-1 is warned about in UTF-8, as kube writes the header', async () => {
    const res = await post('{"metadata":{"name":"euro"},"€ζ":1}');
    expect(res.status).toBe(201);
    expect(warnings(res)).toEqual(['299 - "unknown field \\"€ζ\\""']);
  });

  it('apply checks integer fields as create does: a fraction or an int64 overflow is 400 and nothing is stored', async () => {
    for (const generation of ['1.5', '99999999999999999999']) {
      const res = await patch('gen', `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: gen, generation: ${generation}}\n`, APPLY);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('failed to create typed patch object (default/gen; /v1, Kind=ConfigMap): .metadata.generation: cannot convert float64 to int64');
    }
    await absent('gen');
    const list = await server.admin.get(CONFIGMAPS, { headers: { Accept: PROTOBUF } });
    expect(list.status).toBe(200);
  });

  it('keeps answering', async () => {
    expect((await server.admin.get('/readyz')).status).toBe(200);
  });
});
