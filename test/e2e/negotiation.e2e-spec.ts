import * as https from 'node:https';
import { gunzipSync } from 'node:zlib';
import * as YAML from 'yaml';
import { lengthDelimited, PROTOBUF_PREFIX } from '../../src/runtime/serializer/protobuf/envelope';
import { protobufCodec } from '../../src/runtime/serializer/protobuf/protobuf-codec';
import { ClientIdentity } from '../support/https-client';
import { eventually } from '../support/eventually';
import { Kubectl, kubectlFor, spawnKubectl } from '../support/kubectl';
import { startTestServer, TestServer } from '../support/test-server';

const RBAC = '/apis/rbac.authorization.platform.io/v1';
const NS = 'negotiation';
const RB = `${RBAC}/namespaces/${NS}/rolebindings`;
const PROTOBUF = 'application/vnd.platform.protobuf';
const TABLE = 'application/json;as=Table;g=meta.platform.io;v=v1';
const RBAC_PROTO = 'platform.io.api.rbac.v1';
const META_PROTO = 'platform.io.apimachinery.pkg.apis.meta.v1';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

const binding = (name: string, extra: Record<string, unknown> = {}) => ({
  metadata: { name, ...extra },
  roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' },
  subjects: [
    { kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: 'alice' },
    { kind: 'Group', apiGroup: 'rbac.authorization.platform.io', name: 'devs' },
    { kind: 'ServiceAccount', name: 'ci', namespace: 'build' },
  ],
});

/** Content negotiation over HTTPS: every Accept variant, protobuf bodies, Table, gzip, kubectl. */
describe('content negotiation', () => {
  let server: TestServer;
  let admin: ClientIdentity;
  const codec = protobufCodec();

  /** A request whose body comes back as bytes (protobuf and gzip are not text). */
  function raw(method: string, path: string, headers: Record<string, string> = {}, body?: Buffer): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const req = https.request(
        new URL(path, server.url),
        {
          method,
          headers: { ...headers, ...(body ? { 'Content-Length': String(body.length) } : {}) },
          ca: server.running.material.caCertPem,
          cert: admin.cert,
          key: admin.key,
          agent: false,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      if (body) req.write(body);
      req.end();
    });
  }

  /** A watch whose chunks are collected as bytes; `text` and `frames` read them back. */
  function watchRaw(path: string, accept: string) {
    return new Promise<{ status: number; headers: RawResponse['headers']; data: () => Buffer; close: () => void }>((resolve, reject) => {
      const req = https.request(
        new URL(path, server.url),
        { method: 'GET', headers: { Accept: accept }, ca: server.running.material.caCertPem, cert: admin.cert, key: admin.key, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', () => undefined);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, data: () => Buffer.concat(chunks), close: () => req.destroy() });
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  function frames(data: Buffer): Buffer[] {
    const out: Buffer[] = [];
    let at = 0;
    while (at + 4 <= data.length) {
      const length = data.readUInt32BE(at);
      if (at + 4 + length > data.length) break;
      out.push(data.subarray(at + 4, at + 4 + length));
      at += 4 + length;
    }
    return out;
  }

  beforeAll(async () => {
    server = await startTestServer();
    admin = server.certFor('negotiation-admin', ['system:masters']);
    expect((await server.admin.post('/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
    expect((await server.admin.post(RB, binding('readers'))).status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
  });

  describe('Accept', () => {
    it('answers JSON by default and for wildcards, pretty-printed on request', async () => {
      for (const accept of [undefined, '*/*', 'application/*']) {
        const res = await raw('GET', `${RB}/readers`, accept ? { Accept: accept } : {});
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe('application/json');
        expect(JSON.parse(res.body.toString())).toMatchObject({ kind: 'RoleBinding', metadata: { name: 'readers' } });
      }
      const pretty = await raw('GET', `${RB}/readers?pretty=true`);
      expect(pretty.body.toString()).toMatch(/^\{\n {2}"apiVersion": "rbac\.authorization\.platform\.io\/v1",\n {2}"/);
    });

    it('answers YAML', async () => {
      const res = await raw('GET', `${RB}/readers`, { Accept: 'application/yaml' });
      expect(res.headers['content-type']).toBe('application/yaml');
      const text = res.body.toString();
      expect(text.startsWith('apiVersion: rbac.authorization.platform.io/v1\n')).toBe(true);
      expect(YAML.parse(text)).toMatchObject({ kind: 'RoleBinding', roleRef: { name: 'view' } });
    });

    it('answers protobuf that decodes to the same object', async () => {
      const json = (await server.admin.get(`${RB}/readers`)).body;
      // Subject.apiGroup is omitempty in kube: an empty one does not come back from protobuf.
      json.subjects = json.subjects.map(({ apiGroup, ...s }: any) => (apiGroup ? { apiGroup, ...s } : s));
      const res = await raw('GET', `${RB}/readers`, { Accept: PROTOBUF });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(PROTOBUF);
      expect(res.body.subarray(0, 4)).toEqual(PROTOBUF_PREFIX);
      expect(codec.decode(`${RBAC_PROTO}.RoleBinding`, res.body)).toEqual(json);
      const list = await raw('GET', RB, { Accept: PROTOBUF });
      expect(codec.decode(`${RBAC_PROTO}.RoleBindingList`, list.body)).toMatchObject({ kind: 'RoleBindingList', items: [{ metadata: { name: 'readers' } }] });
    });

    it('falls back along the list in preference order', async () => {
      expect((await raw('GET', `${RB}/readers`, { Accept: 'text/html, application/yaml' })).headers['content-type']).toBe('application/yaml');
      expect((await raw('GET', `${RB}/readers`, { Accept: 'application/json;q=0.5, application/yaml' })).headers['content-type']).toBe('application/yaml');
      const unknownGroup = 'application/json;as=Table;v=v1;g=meta.example.io,application/json';
      const res = await raw('GET', RB, { Accept: unknownGroup });
      expect(JSON.parse(res.body.toString()).kind).toBe('RoleBindingList');
      const protobufTable = await raw('GET', RB, { Accept: `${PROTOBUF};as=Table;g=meta.platform.io;v=v1, application/json` });
      expect(JSON.parse(protobufTable.body.toString()).kind).toBe('RoleBindingList');
    });

    it('answers 406 NotAcceptable in JSON when nothing is acceptable', async () => {
      for (const accept of ['text/html', `${PROTOBUF};as=Table;g=meta.platform.io;v=v1`, 'application/json;as=Table;g=meta.example.io;v=v1']) {
        const res = await raw('GET', RB, { Accept: accept });
        expect(res.status).toBe(406);
        expect(res.headers['content-type']).toBe('application/json');
        expect(JSON.parse(res.body.toString())).toEqual({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.platform.protobuf',
          reason: 'NotAcceptable',
          code: 406,
        });
      }
    });

    it('renders errors in the negotiated format', async () => {
      const yaml = await raw('GET', `${RB}/missing`, { Accept: 'application/yaml' });
      expect(yaml.status).toBe(404);
      expect(yaml.headers['content-type']).toBe('application/yaml');
      expect(YAML.parse(yaml.body.toString())).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
      const proto = await raw('GET', `${RB}/missing`, { Accept: PROTOBUF });
      expect(proto.status).toBe(404);
      expect(proto.headers['content-type']).toBe(PROTOBUF);
      expect(codec.decode(`${META_PROTO}.Status`, proto.body)).toEqual({
        apiVersion: 'v1',
        kind: 'Status',
        metadata: {},
        status: 'Failure',
        message: 'rolebindings.rbac.authorization.platform.io "missing" not found',
        reason: 'NotFound',
        details: { name: 'missing', group: 'rbac.authorization.platform.io', kind: 'rolebindings' },
        code: 404,
      });
      const table = await raw('GET', `${RB}/missing`, { Accept: TABLE });
      expect(table.headers['content-type']).toBe('application/json');
      expect(JSON.parse(table.body.toString()).reason).toBe('NotFound');
    });
  });

  describe('request bodies', () => {
    it('creates from a protobuf body and answers in protobuf when asked', async () => {
      const body = codec.encode(`${RBAC_PROTO}.RoleBinding`, 'rbac.authorization.platform.io/v1', 'RoleBinding', binding('from-protobuf'));
      const created = await raw('POST', RB, { 'Content-Type': PROTOBUF, Accept: 'application/json' }, body);
      expect(created.status).toBe(201);
      expect(JSON.parse(created.body.toString())).toMatchObject({ kind: 'RoleBinding', metadata: { name: 'from-protobuf', namespace: NS }, subjects: binding('x').subjects });
      const again = codec.encode(`${RBAC_PROTO}.RoleBinding`, 'rbac.authorization.platform.io/v1', 'RoleBinding', binding('from-protobuf-2'));
      const createdProto = await raw('POST', RB, { 'Content-Type': PROTOBUF, Accept: PROTOBUF }, again);
      expect(createdProto.status).toBe(201);
      expect(codec.decode(`${RBAC_PROTO}.RoleBinding`, createdProto.body)).toMatchObject({ metadata: { name: 'from-protobuf-2', uid: expect.any(String) } });
    });

    it('rejects a protobuf body without the prefix with 400', async () => {
      const res = await raw('POST', RB, { 'Content-Type': PROTOBUF }, Buffer.from(JSON.stringify(binding('nope'))));
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body.toString())).toMatchObject({
        reason: 'BadRequest',
        message: 'the object provided is unrecognized (must be of type RoleBinding): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"metadata":{"name":"nope"},"r ...)',
      });
    });

    it('rejects unknown body media types with 415', async () => {
      const res = await raw('POST', RB, { 'Content-Type': 'text/plain' }, Buffer.from('x'));
      expect(res.status).toBe(415);
      expect(JSON.parse(res.body.toString())).toMatchObject({
        reason: 'UnsupportedMediaType',
        message: 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.platform.protobuf',
      });
    });

    it('reads protobuf DeleteOptions', async () => {
      await server.admin.post(RB, binding('to-delete'));
      const options = codec.encode(`${META_PROTO}.DeleteOptions`, 'meta.platform.io/v1', 'DeleteOptions', { preconditions: { uid: 'not-the-uid' } });
      const res = await raw('DELETE', `${RB}/to-delete`, { 'Content-Type': PROTOBUF }, options);
      expect(res.status).toBe(409);
      expect(JSON.parse(res.body.toString()).message).toContain('Precondition failed: UID in precondition: not-the-uid');
    });
  });

  describe('Table', () => {
    it('prints a list with the kind columns, list metadata and PartialObjectMetadata rows', async () => {
      const res = await raw('GET', `${RB}?limit=1`, { Accept: TABLE });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      const table = JSON.parse(res.body.toString());
      expect(table).toMatchObject({ kind: 'Table', apiVersion: 'meta.platform.io/v1', metadata: { resourceVersion: expect.any(String), continue: expect.any(String) } });
      expect(table.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Role', 'Age', 'Users', 'Groups', 'ServiceAccounts']);
      expect(table.rows).toHaveLength(1);
      expect(table.rows[0].cells.slice(0, 2)).toEqual([expect.any(String), 'ClusterRole/view']);
      expect(table.rows[0].cells[2]).toMatch(/^\d+s$/);
      expect(table.rows[0].cells.slice(3)).toEqual(['alice', 'devs', 'build/ci']);
      expect(table.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.platform.io/v1', metadata: { namespace: NS } });
    });

    it('prints one object, and carries the object or nothing per includeObject', async () => {
      const one = JSON.parse((await raw('GET', `${RB}/readers?includeObject=Object`, { Accept: TABLE })).body.toString());
      expect(one.rows).toHaveLength(1);
      expect(one.rows[0].object).toMatchObject({ apiVersion: 'rbac.authorization.platform.io/v1', kind: 'RoleBinding', roleRef: { name: 'view' } });
      const none = JSON.parse((await raw('GET', `${RB}?includeObject=None`, { Accept: TABLE })).body.toString());
      expect(none.rows.every((r: any) => r.object === null)).toBe(true);
      const bad = await raw('GET', `${RB}?includeObject=All`, { Accept: TABLE });
      expect(bad.status).toBe(400);
      expect(JSON.parse(bad.body.toString()).message).toBe(
        `Unable to convert to Table as requested: includeObject: Invalid value: "All": must be 'Metadata', 'Object', 'None', or empty`,
      );
    });

    it("prints cluster roles with kube's default columns and namespaces with their status, in v1beta1 too", async () => {
      const roles = JSON.parse((await raw('GET', `${RBAC}/clusterroles`, { Accept: 'application/json;as=Table;g=meta.platform.io;v=v1beta1' })).body.toString());
      expect(roles.apiVersion).toBe('meta.platform.io/v1beta1');
      expect(roles.columnDefinitions.map((c: any) => [c.name, c.type])).toEqual([
        ['Name', 'string'],
        ['Created At', 'date'],
      ]);
      const ns = JSON.parse((await raw('GET', `/api/v1/namespaces/${NS}`, { Accept: TABLE })).body.toString());
      expect(ns.rows[0].cells.slice(0, 2)).toEqual([NS, 'Active']);
      const yaml = await raw('GET', `/api/v1/namespaces/${NS}`, { Accept: 'application/yaml;as=Table;g=meta.platform.io;v=v1' });
      expect(YAML.parse(yaml.body.toString())).toMatchObject({ kind: 'Table', columnDefinitions: [{ name: 'Name' }, { name: 'Status' }, { name: 'Age' }] });
    });

    it('renders metadata only as PartialObjectMetadata[List], and 406 for the wrong one', async () => {
      const list = JSON.parse((await raw('GET', RB, { Accept: 'application/json;as=PartialObjectMetadataList;g=meta.platform.io;v=v1' })).body.toString());
      expect(list).toMatchObject({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.platform.io/v1', items: expect.arrayContaining([expect.objectContaining({ kind: 'PartialObjectMetadata' })]) });
      expect(list.items[0].roleRef).toBeUndefined();
      const proto = await raw('GET', `${RB}/readers`, { Accept: `${PROTOBUF};as=PartialObjectMetadata;g=meta.platform.io;v=v1` });
      expect(codec.decode(`${META_PROTO}.PartialObjectMetadata`, proto.body)).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'readers' } });
      const wrong = await raw('GET', RB, { Accept: 'application/json;as=PartialObjectMetadata;g=meta.platform.io;v=v1' });
      expect(wrong.status).toBe(406);
      expect(JSON.parse(wrong.body.toString()).message).toBe('you requested PartialObjectMetadata, but the requested object is a list (RoleBindingList)');
    });

    it("answers kubectl's meta.k8s.io Table as the meta.platform.io one, in kubectl's group", async () => {
      const kubectlAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
      const ours = JSON.parse((await raw('GET', RB, { Accept: TABLE })).body.toString());
      const res = await raw('GET', RB, { Accept: kubectlAccept });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      const table = JSON.parse(res.body.toString());
      expect(table).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
      expect(table.columnDefinitions).toEqual(ours.columnDefinitions);
      expect(table.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Role', 'Age', 'Users', 'Groups', 'ServiceAccounts']);
      expect(table.rows.map((r: any) => r.cells.slice(0, 2))).toEqual(ours.rows.map((r: any) => r.cells.slice(0, 2)));
      expect(table.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { namespace: NS } });
      const v1beta1 = JSON.parse((await raw('GET', `${RB}/readers`, { Accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' })).body.toString());
      expect(v1beta1).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1beta1', rows: [{ cells: ['readers', 'ClusterRole/view', expect.any(String), 'alice', 'devs', 'build/ci'] }] });
    });

    it('answers PartialObjectMetadata[List] asked in meta.k8s.io in that group, and 406 for the wrong one', async () => {
      const list = await raw('GET', RB, { Accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json' });
      expect(list.status).toBe(200);
      expect(JSON.parse(list.body.toString())).toMatchObject({
        kind: 'PartialObjectMetadataList',
        apiVersion: 'meta.k8s.io/v1',
        items: expect.arrayContaining([{ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: expect.objectContaining({ name: 'readers' }) }]),
      });
      const one = await raw('GET', `${RB}/readers`, { Accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' });
      expect(JSON.parse(one.body.toString())).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'readers' } });
      const wrong = await raw('GET', `${RB}/readers`, { Accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' });
      expect(wrong.status).toBe(406);
      expect(JSON.parse(wrong.body.toString())).toMatchObject({
        kind: 'Status',
        reason: 'NotAcceptable',
        message: 'you requested PartialObjectMetadataList, but the requested object is not a list (RoleBinding)',
      });
    });

    it('sends watch events as one-row Tables in meta.k8s.io when kubectl asks so', async () => {
      const list = (await server.admin.get(RB)).body;
      const watch = await watchRaw(`${RB}?watch=1&resourceVersion=${list.metadata.resourceVersion}`, 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json');
      try {
        expect(watch.status).toBe(200);
        await server.admin.post(RB, binding('k8s-watched'));
        let events: any[] = [];
        await eventually(() => {
          events = watch.data().toString().split('\n').filter(Boolean).map((l) => JSON.parse(l));
          expect(events).toHaveLength(1);
        });
        expect(events[0]).toMatchObject({
          type: 'ADDED',
          object: { kind: 'Table', apiVersion: 'meta.k8s.io/v1', rows: [{ cells: ['k8s-watched', 'ClusterRole/view', expect.any(String), 'alice', 'devs', 'build/ci'] }] },
        });
        expect(events[0].object.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Role', 'Age', 'Users', 'Groups', 'ServiceAccounts']);
        expect(events[0].object.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
      } finally {
        watch.close();
      }
    });

    it('sends watch events as one-row Tables, columns on the first only', async () => {
      const list = (await server.admin.get(RB)).body;
      const watch = await watchRaw(`${RB}?watch=1&resourceVersion=${list.metadata.resourceVersion}`, TABLE);
      try {
        expect(watch.status).toBe(200);
        await server.admin.post(RB, binding('watched-1'));
        await server.admin.post(RB, binding('watched-2'));
        let events: any[] = [];
        await eventually(() => {
          events = watch.data().toString().split('\n').filter(Boolean).map((l) => JSON.parse(l));
          expect(events).toHaveLength(2);
        });
        expect(events[0]).toMatchObject({ type: 'ADDED', object: { kind: 'Table', rows: [{ cells: ['watched-1', 'ClusterRole/view', expect.any(String), 'alice', 'devs', 'build/ci'] }] } });
        expect(events[0].object.columnDefinitions).toHaveLength(6);
        expect(events[1].object.columnDefinitions).toBeNull();
        expect(events[1].object.rows[0].cells[0]).toBe('watched-2');
      } finally {
        watch.close();
      }
    });
  });

  describe('protobuf watch', () => {
    it('streams length-prefixed WatchEvent frames', async () => {
      const list = (await server.admin.get(RB)).body;
      const watch = await watchRaw(`${RB}?watch=1&resourceVersion=${list.metadata.resourceVersion}`, PROTOBUF);
      try {
        expect(watch.headers['content-type']).toBe(`${PROTOBUF};stream=watch`);
        await server.admin.post(RB, binding('pb-watched'));
        let got: Buffer[] = [];
        await eventually(() => {
          got = frames(watch.data());
          expect(got).toHaveLength(1);
        });
        expect(lengthDelimited(got[0])).toEqual(watch.data());
        const envelope = codec.unwrap(got[0]);
        expect(envelope).toMatchObject({ apiVersion: 'rbac.authorization.platform.io/v1', kind: 'WatchEvent' });
        const event = codec.type(`${META_PROTO}.WatchEvent`).decode(envelope.raw) as any;
        expect(event.type).toBe('ADDED');
        expect(codec.decode(`${RBAC_PROTO}.RoleBinding`, Buffer.from(event.object.raw))).toMatchObject({ kind: 'RoleBinding', metadata: { name: 'pb-watched' } });
      } finally {
        watch.close();
      }
    });

    it('refuses YAML for a watch with the stream media types', async () => {
      const res = await raw('GET', `${RB}?watch=1`, { Accept: 'application/yaml' });
      expect(res.status).toBe(406);
      expect(YAML.parse(res.body.toString()).message).toBe(
        'only the following media types are accepted: application/json;stream=watch, application/vnd.platform.protobuf;stream=watch',
      );
    });
  });

  describe('gzip', () => {
    const GZ = `${RBAC}/namespaces/${NS}/roles`;

    beforeAll(async () => {
      // Three roles of ~60 KiB each make a list above the 128 KiB threshold.
      for (const name of ['big-1', 'big-2', 'big-3']) {
        const res = await server.admin.post(GZ, { metadata: { name, annotations: { pad: 'x'.repeat(60 * 1024) } }, rules: [] });
        expect(res.status).toBe(201);
      }
    });

    it('compresses a list above 128 KiB when the client accepts gzip', async () => {
      const res = await raw('GET', GZ, { 'Accept-Encoding': 'gzip' });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(res.headers.vary).toBe('Accept-Encoding');
      const list = JSON.parse(gunzipSync(res.body).toString());
      expect(list.items.map((r: any) => r.metadata.name)).toEqual(['big-1', 'big-2', 'big-3']);
    });

    it('leaves small bodies, clients without gzip, and watches alone', async () => {
      const small = await raw('GET', `${GZ}/big-1`, { 'Accept-Encoding': 'gzip' });
      expect(small.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(small.body.toString()).metadata.name).toBe('big-1');
      const plain = await raw('GET', GZ, {});
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(plain.body.toString()).items).toHaveLength(3);
      const watch = await watchRaw(`${GZ}?watch=1`, 'application/json');
      try {
        expect(watch.headers['content-encoding']).toBeUndefined();
      } finally {
        watch.close();
      }
    });
  });

  describe('kubectl', () => {
    let kubectl: Kubectl;

    beforeAll(() => {
      kubectl = kubectlFor(server);
    });

    it('gets rolebindings, wide, as YAML and as JSON', async () => {
      const table = await kubectl('get', 'rolebindings.rbac.authorization.platform.io', '-n', NS);
      expect(table.stdout).toMatch(/^NAME\s+ROLE\s+AGE\n/);
      expect(table.stdout).toMatch(/\nreaders\s+ClusterRole\/view\s+\d+s\n/);
      const wide = await kubectl('get', 'rolebindings.rbac.authorization.platform.io', '-n', NS, '-o', 'wide');
      expect(wide.stdout).toMatch(/^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS\n/);
      expect(wide.stdout).toMatch(/\nreaders\s+ClusterRole\/view\s+\d+s\s+alice\s+devs\s+build\/ci\n/);
      const yaml = YAML.parse((await kubectl('get', 'rolebindings.rbac.authorization.platform.io', 'readers', '-n', NS, '-o', 'yaml')).stdout);
      expect(yaml).toMatchObject({ apiVersion: 'rbac.authorization.platform.io/v1', kind: 'RoleBinding', roleRef: { name: 'view' } });
      const json = JSON.parse((await kubectl('get', 'rolebindings.rbac.authorization.platform.io', 'readers', '-n', NS, '-o', 'json')).stdout);
      expect(json.subjects).toHaveLength(3);
    });

    it('follows changes with get -w', async () => {
      const watch = spawnKubectl(server, 'get', 'rolebindings.rbac.authorization.platform.io', '-n', NS, '-w');
      try {
        await eventually(() => expect(watch.output()).toMatch(/readers/), 10000);
        expect((await server.admin.post(RB, binding('kubectl-watched'))).status).toBe(201);
        await eventually(() => expect(watch.output()).toMatch(/\nkubectl-watched\s+ClusterRole\/view\s+\d+s\n/), 10000);
        expect(watch.output()).toMatch(/^NAME\s+ROLE\s+AGE\n/);
      } finally {
        watch.stop();
      }
    });
  });
});
