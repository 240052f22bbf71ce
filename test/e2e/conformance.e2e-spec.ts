import { PROTOBUF_PREFIX } from '../../src/runtime/serializer/protobuf/envelope';
import { protobufCodec } from '../../src/runtime/serializer/protobuf/protobuf-codec';
import { ResourceRegistry } from '../../src/registry/resources/registry';
import { apiVersionOf, ResourceType } from '../../src/runtime/schema/resource-type';
import { eventually } from '../support/eventually';
import { HttpResponse } from '../support/https-client';
import { CREATE_ONLY_KIND_SAMPLES, kindKey, READ_ONLY_KINDS, Sample, STORED_KIND_SAMPLES } from '../support/kind-fixtures';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * The conformance suite, as kube's registry `resttest`: the same checks for every kind the
 * registry serves, over HTTPS against one real server. The kinds come from the registry at
 * run time; each needs a sample in test/support/kind-fixtures.ts (the first test names any
 * kind without one). Kinds served with the storage verbs get the full table; create-only
 * kinds (the reviews) their own small one.
 */

const NS = 'conformance';
const OTHER_NS = 'conformance-other';
const TABLE = 'application/json;as=Table;g=meta.platform.io;v=v1';
const PROTOBUF = 'application/vnd.platform.protobuf';
const JSON_PATCH = 'application/json-patch+json';
const MERGE = 'application/merge-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

function warnings(res: HttpResponse): string[] {
  const out: string[] = [];
  for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i].toLowerCase() === 'warning') out.push(res.rawHeaders[i + 1]);
  return out;
}

const keyOf = (type: ResourceType) => kindKey(apiVersionOf(type), type.kind);
const isCreateOnly = (type: ResourceType) => type.verbs.length === 1 && type.verbs[0] === 'create';
const isReadOnly = (type: ResourceType) => type.verbs.every((verb) => verb === 'get' || verb === 'list' || verb === 'watch');

/** Paths, names and samples of one kind. */
class KindUnderTest {
  constructor(
    readonly type: ResourceType,
    private readonly body: () => Sample,
  ) {}

  get apiVersion() {
    return apiVersionOf(this.type);
  }
  /** kube's group-qualified resource, as in Status messages: `roles.rbac.authorization.platform.io`, `pods`. */
  get resource() {
    return this.type.group ? `${this.type.plural}.${this.type.group}` : this.type.plural;
  }
  private get root() {
    return this.type.group ? `/apis/${this.type.group}/${this.type.version}` : `/api/${this.type.version}`;
  }
  collection(namespace = NS) {
    return this.type.namespaced ? `${this.root}/namespaces/${namespace}/${this.type.plural}` : `${this.root}/${this.type.plural}`;
  }
  /** The collection across all namespaces (the same path for cluster-scoped kinds). */
  allNamespaces() {
    return `${this.root}/${this.type.plural}`;
  }
  item(name: string, namespace = NS) {
    return `${this.collection(namespace)}/${name}`;
  }
  /** A valid object of the kind; names are unique per kind (each test uses its own). */
  sample(name: string, labels: Record<string, string> = {}, namespace = NS): Sample {
    const metadata: Record<string, unknown> = { name, labels: { conformance: 'yes', ...labels } };
    if (this.type.namespaced) metadata.namespace = namespace;
    return { apiVersion: this.apiVersion, kind: this.type.kind, metadata, ...this.body() };
  }
  serves(verb: string) {
    return (this.type.verbs as string[]).includes(verb);
  }
}

describe('conformance of every served kind', () => {
  let server: TestServer;
  let registered: ResourceType[];
  const codec = protobufCodec();

  beforeAll(async () => {
    server = await startTestServer();
    registered = server.running.app.get(ResourceRegistry).all().map((r) => r.type);
    for (const name of [NS, OTHER_NS]) expect((await server.admin.post('/api/v1/namespaces', { metadata: { name } })).status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('has a sample for every registered kind, and no sample for a kind not served', () => {
    const stored = registered.filter((t) => !isCreateOnly(t) && !isReadOnly(t)).map(keyOf);
    const createOnly = registered.filter(isCreateOnly).map(keyOf);
    const readOnly = registered.filter(isReadOnly).map(keyOf);
    const missing = [
      ...stored.filter((k) => !STORED_KIND_SAMPLES[k]),
      ...createOnly.filter((k) => !CREATE_ONLY_KIND_SAMPLES[k]),
      ...readOnly.filter((k) => !READ_ONLY_KINDS.includes(k)),
    ];
    expect({ kindsWithoutSample: missing }).toEqual({ kindsWithoutSample: [] });
    const unserved = [
      ...Object.keys(STORED_KIND_SAMPLES).filter((k) => !stored.includes(k)),
      ...Object.keys(CREATE_ONLY_KIND_SAMPLES).filter((k) => !createOnly.includes(k)),
      ...READ_ONLY_KINDS.filter((k) => !readOnly.includes(k)),
    ];
    expect({ samplesOfUnservedKinds: unserved }).toEqual({ samplesOfUnservedKinds: [] });
  });

  describe.each(Object.keys(STORED_KIND_SAMPLES))('%s', (key) => {
    let k: KindUnderTest;

    beforeAll(() => {
      const type = registered.find((t) => keyOf(t) === key);
      if (!type) throw new Error(`${key} is not served`);
      k = new KindUnderTest(type, STORED_KIND_SAMPLES[key]);
    });

    const create = async (obj: Sample) => {
      const res = await server.admin.post(k.collection(obj.metadata.namespace), obj);
      expect({ status: res.status, body: res.status === 201 ? undefined : res.body }).toEqual({ status: 201, body: undefined });
      return res.body;
    };
    /** Deletes and waits until the object is gone (a namespace is finalized asynchronously). */
    const deleteAndWait = async (name: string) => {
      const res = await server.admin.delete(k.item(name));
      expect(res.status).toBe(200);
      await eventually(async () => expect((await server.admin.get(k.item(name))).status).toBe(404));
      return res;
    };

    it('creates (201, server-set metadata), gets it back, and lists it', async () => {
      const res = await server.admin.post(k.collection(), k.sample('c-create'));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ apiVersion: k.apiVersion, kind: k.type.kind, metadata: { name: 'c-create', labels: { conformance: 'yes' } } });
      expect(res.body.metadata.namespace).toBe(k.type.namespaced ? NS : undefined);
      expect(res.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.body.metadata.resourceVersion).toMatch(/^[1-9]\d*$/);
      expect(res.body.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

      const got = await server.admin.get(k.item('c-create'));
      expect(got.status).toBe(200);
      expect(got.body).toEqual(res.body);

      const list = await server.admin.get(k.collection());
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({ apiVersion: k.apiVersion, kind: k.type.listKind });
      expect(list.body.metadata.resourceVersion).toMatch(/^\d+$/);
      const listed = list.body.items.find((i: Sample) => i.metadata.name === 'c-create');
      expect(listed).toEqual({ ...res.body, apiVersion: undefined, kind: undefined });

      const dup = await server.admin.post(k.collection(), k.sample('c-create'));
      expect(dup.status).toBe(409);
      expect(dup.body).toMatchObject({ reason: 'AlreadyExists', message: `${k.resource} "c-create" already exists` });
    });

    it('lists in pages, and across namespaces for a namespaced kind', async () => {
      for (const name of ['c-page-a', 'c-page-b', 'c-page-c']) await create(k.sample(name, { paged: 'yes' }));
      const names: string[] = [];
      let cont = '';
      for (let page = 0; page < 5; page++) {
        const res = await server.admin.get(`${k.collection()}?labelSelector=paged%3Dyes&limit=2${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
        expect(res.status).toBe(200);
        expect(res.body.items.length).toBeLessThanOrEqual(2);
        names.push(...res.body.items.map((i: Sample) => i.metadata.name));
        cont = res.body.metadata.continue ?? '';
        if (!cont) break;
      }
      expect(names).toEqual(['c-page-a', 'c-page-b', 'c-page-c']);
      if (k.type.namespaced) {
        await create(k.sample('c-page-other', { paged: 'yes' }, OTHER_NS));
        const all = await server.admin.get(`${k.allNamespaces()}?labelSelector=paged%3Dyes`);
        expect(all.body.items.map((i: Sample) => `${i.metadata.namespace}/${i.metadata.name}`).sort()).toEqual(
          [`${NS}/c-page-a`, `${NS}/c-page-b`, `${NS}/c-page-c`, `${OTHER_NS}/c-page-other`].sort(),
        );
      }
    });

    it('updates with PUT: new resourceVersion, same uid and creationTimestamp', async () => {
      const created = await create(k.sample('c-update'));
      const changed = { ...created, metadata: { ...created.metadata, labels: { ...created.metadata.labels, step: 'updated' } } };
      const res = await server.admin.put(k.item('c-update'), changed);
      expect(res.status).toBe(200);
      expect(res.body.metadata.labels.step).toBe('updated');
      expect(res.body.metadata.uid).toBe(created.metadata.uid);
      expect(res.body.metadata.creationTimestamp).toBe(created.metadata.creationTimestamp);
      expect(BigInt(res.body.metadata.resourceVersion)).toBeGreaterThan(BigInt(created.metadata.resourceVersion));
      expect((await server.admin.get(k.item('c-update'))).body).toEqual(res.body);
    });

    it('refuses a stale resourceVersion with 409 Conflict', async () => {
      const created = await create(k.sample('c-stale'));
      const relabel = (step: string) => ({ ...created, metadata: { ...created.metadata, labels: { step } } });
      expect((await server.admin.put(k.item('c-stale'), relabel('1'))).status).toBe(200);
      const stale = await server.admin.put(k.item('c-stale'), relabel('2'));
      expect(stale.status).toBe(409);
      expect(stale.body).toMatchObject({
        kind: 'Status',
        reason: 'Conflict',
        message: `Operation cannot be fulfilled on ${k.resource} "c-stale": the object has been modified; please apply your changes to the latest version and try again`,
      });
      expect((await server.admin.get(k.item('c-stale'))).body.metadata.labels).toMatchObject({ step: '1' });
    });

    it.each([
      ['json', JSON_PATCH, [{ op: 'add', path: '/metadata/labels/patched', value: 'json' }]],
      ['merge', MERGE, { metadata: { labels: { patched: 'merge' } } }],
      ['strategic', SMP, { metadata: { labels: { patched: 'strategic' } } }],
    ])('patches with a %s patch', async (label, contentType, patch) => {
      const name = `c-patch-${label}`;
      const created = await create(k.sample(name));
      const res = await server.admin.patch(k.item(name), patch, contentType);
      expect({ status: res.status, labels: res.body.metadata?.labels }).toEqual({ status: 200, labels: { ...created.metadata.labels, patched: label } });
      expect(BigInt(res.body.metadata.resourceVersion)).toBeGreaterThan(BigInt(created.metadata.resourceVersion));
      expect((await server.admin.get(k.item(name))).body).toEqual(res.body);
    });

    it('server-side apply creates, then updates, recording the field manager', async () => {
      const applied = await server.admin.patch(`${k.item('c-apply')}?fieldManager=conformance`, k.sample('c-apply', { applied: '1' }), APPLY);
      expect(applied.status).toBe(201);
      expect(applied.body.metadata.labels).toMatchObject({ conformance: 'yes', applied: '1' });
      const config = k.sample('c-apply');
      config.metadata.labels = { applied: '2' };
      const again = await server.admin.patch(`${k.item('c-apply')}?fieldManager=conformance`, config, APPLY);
      expect(again.status).toBe(200);
      // A label the manager stopped applying is removed.
      const { conformance: _dropped, ...kept } = applied.body.metadata.labels;
      expect(again.body.metadata.labels).toEqual({ ...kept, applied: '2' });
      expect(again.body.metadata.managedFields).toEqual([expect.objectContaining({ manager: 'conformance', operation: 'Apply', apiVersion: k.apiVersion })]);
      expect((await server.admin.get(k.item('c-apply'))).body).toEqual(again.body);
    });

    it('deletes: the object is gone, a second delete is 404', async () => {
      const created = await create(k.sample('c-delete'));
      const res = await deleteAndWait('c-delete');
      if (k.type.deleteReturnsObject) expect(res.body).toMatchObject({ kind: k.type.kind, metadata: { name: 'c-delete', uid: created.metadata.uid } });
      else expect(res.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'c-delete', kind: k.type.plural } });
      const again = await server.admin.delete(k.item('c-delete'));
      expect(again.status).toBe(404);
      expect(again.body).toMatchObject({ reason: 'NotFound', message: `${k.resource} "c-delete" not found` });
    });

    it('deletes a collection by label selector, or answers 405 when the kind serves no deletecollection', async () => {
      for (const name of ['c-dc-a', 'c-dc-b']) await create(k.sample(name, { batch: 'dc' }));
      await create(k.sample('c-dc-keep'));
      const res = await server.admin.delete(`${k.collection()}?labelSelector=batch%3Ddc`);
      if (!k.serves('deletecollection')) {
        expect(res.status).toBe(405);
        expect(res.body).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed' });
        return;
      }
      expect(res.status).toBe(200);
      // kube's store answers with the list of the objects it deleted.
      expect(res.body).toMatchObject({ kind: `${k.type.kind}List`, apiVersion: k.apiVersion });
      expect(res.body.items.map((o: { metadata: { name: string } }) => o.metadata.name).sort()).toEqual(['c-dc-a', 'c-dc-b']);
      const left = await server.admin.get(`${k.collection()}?labelSelector=batch%3Ddc`);
      expect(left.body.items).toEqual([]);
      expect((await server.admin.get(k.item('c-dc-keep'))).status).toBe(200);
    });

    it('generates a name from generateName', async () => {
      const obj = k.sample('');
      obj.metadata = { ...obj.metadata, name: undefined, generateName: 'c-gen-' };
      const res = await server.admin.post(k.collection(), obj);
      expect(res.status).toBe(201);
      expect(res.body.metadata.name).toMatch(/^c-gen-[a-z0-9]{5}$/);
      expect(res.body.metadata.generateName).toBe('c-gen-');
      expect((await server.admin.get(k.item(res.body.metadata.name))).status).toBe(200);
    });

    it('dry run stores nothing: create, update, patch and delete', async () => {
      const dryCreate = await server.admin.post(`${k.collection()}?dryRun=All`, k.sample('c-dry-new'));
      expect(dryCreate.status).toBe(201);
      expect(dryCreate.body.metadata).toMatchObject({ name: 'c-dry-new', uid: expect.any(String) });
      expect((await server.admin.get(k.item('c-dry-new'))).status).toBe(404);

      const created = await create(k.sample('c-dry'));
      const changed = { ...created, metadata: { ...created.metadata, labels: { dry: 'run' } } };
      const dryUpdate = await server.admin.put(`${k.item('c-dry')}?dryRun=All`, changed);
      expect(dryUpdate.status).toBe(200);
      expect(dryUpdate.body.metadata.labels).toMatchObject({ dry: 'run' });
      expect(dryUpdate.body.metadata.labels.conformance).toBeUndefined();
      const dryPatch = await server.admin.patch(`${k.item('c-dry')}?dryRun=All`, { metadata: { labels: { dry: 'patch' } } }, MERGE);
      expect(dryPatch.status).toBe(200);
      expect(dryPatch.body.metadata.labels).toEqual({ ...created.metadata.labels, dry: 'patch' });
      const dryDelete = await server.admin.delete(`${k.item('c-dry')}?dryRun=All`);
      expect(dryDelete.status).toBe(200);
      expect((await server.admin.get(k.item('c-dry'))).body).toEqual(created);
    });

    it('checks the namespace of the body against the request', async () => {
      if (k.type.namespaced) {
        const res = await server.admin.post(k.collection(), k.sample('c-ns-mismatch', {}, OTHER_NS));
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({
          kind: 'Status',
          reason: 'BadRequest',
          code: 400,
          message: 'the namespace of the provided object does not match the namespace sent on the request',
        });
        expect((await server.admin.get(k.item('c-ns-mismatch', OTHER_NS))).status).toBe(404);
        const noNamespace = k.sample('c-ns-filled');
        delete noNamespace.metadata.namespace;
        const filled = await server.admin.post(k.collection(), noNamespace);
        expect(filled.status).toBe(201);
        expect(filled.body.metadata.namespace).toBe(NS);
      } else {
        // A cluster-scoped kind drops a namespace the body names, as kube does.
        const res = await server.admin.post(k.collection(), { ...k.sample('c-ns-dropped'), metadata: { name: 'c-ns-dropped', namespace: OTHER_NS } });
        expect(res.status).toBe(201);
        expect(res.body.metadata.namespace).toBeUndefined();
      }
    });

    describe('unknown fields under each fieldValidation', () => {
      const withUnknown = (name: string) => ({ ...k.sample(name), bogusField: 1, metadata: { ...k.sample(name).metadata, bogusMeta: true } });

      it('Ignore: created, no warning, nothing unknown stored', async () => {
        const res = await server.admin.post(`${k.collection()}?fieldValidation=Ignore`, withUnknown('c-fv-ignore'));
        expect(res.status).toBe(201);
        expect(warnings(res)).toEqual([]);
        expect(res.body.bogusField).toBeUndefined();
        expect(res.body.metadata.bogusMeta).toBeUndefined();
      });

      it('Warn: created, one Warning per unknown field', async () => {
        const res = await server.admin.post(`${k.collection()}?fieldValidation=Warn`, withUnknown('c-fv-warn'));
        expect(res.status).toBe(201);
        expect(warnings(res).sort()).toEqual(['299 - "unknown field \\"bogusField\\""', '299 - "unknown field \\"metadata.bogusMeta\\""']);
        expect((await server.admin.get(k.item('c-fv-warn'))).body.bogusField).toBeUndefined();
      });

      it("Strict: 400 in kube's words, nothing stored", async () => {
        const res = await server.admin.post(`${k.collection()}?fieldValidation=Strict`, withUnknown('c-fv-strict'));
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({
          reason: 'BadRequest',
          message: `${k.type.kind} in version "${k.type.version}" cannot be handled as a ${k.type.kind}: strict decoding error: unknown field "metadata.bogusMeta", unknown field "bogusField"`,
        });
        expect((await server.admin.get(k.item('c-fv-strict'))).status).toBe(404);
      });
    });

    it('watches: ADDED, MODIFIED and DELETED in order', async () => {
      const list = await server.admin.get(`${k.collection()}?labelSelector=watched%3Dyes`);
      const watch = await server.admin.stream(`${k.collection()}?watch=1&labelSelector=watched%3Dyes&resourceVersion=${list.body.metadata.resourceVersion}`);
      try {
        expect(watch.status).toBe(200);
        await create(k.sample('c-watch', { watched: 'yes' }));
        expect((await server.admin.patch(k.item('c-watch'), { metadata: { annotations: { step: '2' } } }, MERGE)).status).toBe(200);
        await deleteAndWait('c-watch');
        await eventually(() => expect(watch.events.map((e) => e.type)).toContain('DELETED'));
        const types = watch.events.map((e) => e.type);
        // A kind that finalizes (a namespace) reports its finalization as more MODIFIED events.
        expect(types.join(' ')).toMatch(/^ADDED MODIFIED( MODIFIED)* DELETED$/);
        if (!k.type.deleteReturnsObject) expect(types).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
        for (const e of watch.events) expect(e.object).toMatchObject({ apiVersion: k.apiVersion, kind: k.type.kind, metadata: { name: 'c-watch' } });
        expect(watch.events[1].object.metadata.annotations).toEqual({ step: '2' });
      } finally {
        watch.close();
      }
    });

    it('prints a Table (kube\'s default columns at least) for a list and for one object', async () => {
      await create(k.sample('c-table', { tabled: 'yes' }));
      const res = await server.admin.get(`${k.collection()}?labelSelector=tabled%3Dyes`, { headers: { Accept: TABLE } });
      if (k.type.table === 'none') {
        expect(res.status).toBe(406);
        return;
      }
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ kind: 'Table', apiVersion: 'meta.platform.io/v1' });
      expect(res.body.columnDefinitions[0]).toMatchObject({ name: 'Name', type: 'string', format: 'name' });
      expect(res.body.rows).toEqual([
        expect.objectContaining({ cells: expect.arrayContaining(['c-table']), object: expect.objectContaining({ kind: 'PartialObjectMetadata', metadata: expect.objectContaining({ name: 'c-table' }) }) }),
      ]);
      expect(res.body.rows[0].cells).toHaveLength(res.body.columnDefinitions.length);
      const one = await server.admin.get(k.item('c-table'), { headers: { Accept: TABLE } });
      expect(one.status).toBe(200);
      expect(one.body.rows.map((r: { cells: unknown[] }) => r.cells[0])).toEqual(['c-table']);
    });

    it('speaks protobuf where the kind offers it: reads, lists and creates', async () => {
      const created = await create(k.sample('c-proto'));
      const res = await server.admin.get(k.item('c-proto'), { headers: { Accept: PROTOBUF } });
      if (!k.type.protobuf) {
        expect(res.status).toBe(406);
        return;
      }
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(PROTOBUF);
      expect(res.bytes.subarray(0, 4)).toEqual(PROTOBUF_PREFIX);
      expect(codec.decode(k.type.protobuf.message, res.bytes)).toEqual(created);

      const list = await server.admin.get(k.collection(), { headers: { Accept: PROTOBUF } });
      expect(list.status).toBe(200);
      const decoded = codec.decode(k.type.protobuf.listMessage!, list.bytes) as { kind: string; items: Sample[] };
      expect(decoded.kind).toBe(k.type.listKind);
      expect(decoded.items.map((i) => i.metadata.name)).toContain('c-proto');

      const sample = k.sample('c-proto-body');
      const body = codec.encode(k.type.protobuf.message, k.apiVersion, k.type.kind, sample);
      const posted = await server.admin.request('POST', k.collection(), { raw: body, contentType: PROTOBUF });
      expect(posted.status).toBe(201);
      const { metadata: _meta, ...content } = sample;
      expect(posted.body).toMatchObject({ ...content, metadata: { name: 'c-proto-body' } });
    });
  });

  describe.each(Object.keys(CREATE_ONLY_KIND_SAMPLES))('%s (create-only)', (key) => {
    let type: ResourceType;
    let path: string;
    let sample: Sample;

    beforeAll(() => {
      const found = registered.find((t) => keyOf(t) === key);
      if (!found) throw new Error(`${key} is not served`);
      type = found;
      const root = `/apis/${type.group}/${type.version}`;
      path = type.namespaced ? `${root}/namespaces/default/${type.plural}` : `${root}/${type.plural}`;
      sample = { apiVersion: apiVersionOf(type), kind: type.kind, ...CREATE_ONLY_KIND_SAMPLES[key]() };
      if (type.namespaced) sample.metadata = { namespace: 'default' };
    });

    it('answers a create with 201 and a status, also under dry run', async () => {
      for (const query of ['', '?dryRun=All']) {
        const res = await server.admin.post(`${path}${query}`, sample);
        expect({ query, status: res.status }).toEqual({ query, status: 201 });
        expect(res.body).toMatchObject({ apiVersion: apiVersionOf(type), kind: type.kind, status: expect.any(Object) });
      }
    });

    it('serves no other verb: 405 on the collection, 404 for any object path (kube routes none)', async () => {
      const answers = [];
      for (const [method, target] of [['GET', path], ['DELETE', path], ['GET', `${path}/x`], ['PUT', `${path}/x`]]) {
        const res = await server.admin.request(method, target, method === 'PUT' ? { body: sample } : {});
        answers.push(`${method} ${target.endsWith('/x') ? 'object' : 'collection'}: ${res.status} ${res.body?.reason}`);
      }
      expect(answers).toEqual([
        'GET collection: 405 MethodNotAllowed',
        'DELETE collection: 405 MethodNotAllowed',
        'GET object: 404 NotFound',
        'PUT object: 404 NotFound',
      ]);
    });

    it("refuses unknown fields under Strict in kube's words", async () => {
      const res = await server.admin.post(`${path}?fieldValidation=Strict`, { ...sample, bogusField: 1 });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        reason: 'BadRequest',
        message: `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: strict decoding error: unknown field "bogusField"`,
      });
      const warned = await server.admin.post(`${path}?fieldValidation=Warn`, { ...sample, bogusField: 1 });
      expect(warned.status).toBe(201);
      expect(warnings(warned)).toEqual(['299 - "unknown field \\"bogusField\\""']);
    });
  });

  describe.each(READ_ONLY_KINDS)('%s (read-only)', (key) => {
    let type: ResourceType;
    let path: string;

    beforeAll(() => {
      const found = registered.find((t) => keyOf(t) === key);
      if (!found) throw new Error(`${key} is not served`);
      type = found;
      path = `/apis/${type.group}/${type.version}/${type.plural}`;
    });

    it('lists (JSON and Table) and gets what it lists', async () => {
      const list = await server.admin.get(path);
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({ apiVersion: apiVersionOf(type), kind: type.listKind, metadata: { resourceVersion: expect.stringMatching(/^\d+$/) } });
      const table = await server.admin.get(path, { headers: { accept: TABLE } });
      expect(table.body).toMatchObject({ kind: 'Table', rows: expect.any(Array) });
      expect(table.body.rows).toHaveLength(list.body.items.length);
      if (list.body.items.length) {
        const got = await server.admin.get(`${path}/${list.body.items[0].metadata.name}`);
        expect(got.body).toMatchObject({ apiVersion: apiVersionOf(type), kind: type.kind, metadata: { name: list.body.items[0].metadata.name } });
      }
    });

    it('serves no write, and no watch unless it says so: 405', async () => {
      const answers = [];
      const body = { apiVersion: apiVersionOf(type), kind: type.kind, metadata: { name: 'x' } };
      const unserved = [['POST', path], ['DELETE', path], ['PUT', `${path}/x`], ['DELETE', `${path}/x`]];
      if (!type.verbs.includes('watch')) unserved.push(['GET', `${path}?watch=true`]);
      for (const [method, target] of unserved) {
        const res = await server.admin.request(method, target, method === 'POST' || method === 'PUT' ? { body } : {});
        answers.push(`${method} ${target}: ${res.status} ${res.body?.reason}`);
      }
      expect(answers.every((a) => a.endsWith(': 405 MethodNotAllowed'))).toBe(true);
    });
  });
});
