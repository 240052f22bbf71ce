import { startTestServer, TestServer } from '../support/test-server';

/**
 * Query parameters as kube decodes them, over HTTPS, for every verb: booleans (only absent,
 * `0` and `false` in any case are false), integers (strconv.ParseInt: anything else is 400
 * naming the parameter), repeated parameters (the first counts), and what the handlers then
 * do with negatives.
 */
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const NS = 'qp';
const ROLES = `${RBAC}/namespaces/${NS}/roles`;
const role = (name: string, extra: object = {}) => ({ metadata: { name, labels: { suite: 'qp' } }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }], ...extra });
const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';

describe('query parameters as kube decodes them', () => {
  let server: TestServer;
  const badInt = (param: string, value: string) => {
    const goError = `strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`;
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      code: 400,
      reason: 'BadRequest',
      message: `${param}: ${goError}`,
      details: { causes: [{ reason: 'FieldValueInvalid', message: goError, field: param }] },
    };
  };

  beforeAll(async () => {
    server = await startTestServer();
    expect((await server.admin.post('/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
    for (const name of ['a', 'b', 'c']) expect((await server.admin.post(ROLES, role(name))).status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
  });

  /** Whether a GET of the collection answered with a watch stream (events) or a list. */
  async function answeredAs(query: string): Promise<'watch' | 'list'> {
    const res = await server.admin.stream(`${ROLES}?${query}`);
    try {
      const [first] = await res.waitFor(1);
      expect(res.status).toBe(200);
      if (first.kind === 'RoleList') return 'list';
      expect(first.type).toBe('ADDED');
      return 'watch';
    } finally {
      res.close();
    }
  }

  it('watch: every value but 0 and false (any case) is a watch, the empty one included; the first of several counts', async () => {
    for (const on of ['watch=true', 'watch=True', 'watch=1', 'watch=', 'watch', 'watch=yes', 'watch=1&watch=0']) {
      expect([on, await answeredAs(on)]).toEqual([on, 'watch']);
    }
    for (const off of ['watch=false', 'watch=False', 'watch=FALSE', 'watch=0', 'watch=0&watch=1', '']) {
      expect([off, await answeredAs(off)]).toEqual([off, 'list']);
    }
  });

  it('a GET of one object is a get whatever watch says', async () => {
    const res = await server.admin.get(`${ROLES}/a?watch=true`);
    expect([res.status, res.body.kind, res.body.metadata.name]).toEqual([200, 'Role', 'a']);
  });

  it('limit: the first value; 0 and negatives list everything; a non-number, an empty value or overflow is 400', async () => {
    const first = await server.admin.get(`${ROLES}?limit=1&limit=nonsense`);
    expect([first.status, first.body.items.length, typeof first.body.metadata.continue]).toEqual([200, 1, 'string']);
    for (const all of ['0', '-1', '-9223372036854775808']) {
      const res = await server.admin.get(`${ROLES}?limit=${all}`);
      expect([all, res.status, res.body.items.length, res.body.metadata.continue]).toEqual([all, 200, 3, undefined]);
    }
    for (const bad of ['abc', '', '2.5', '0x1']) expect((await server.admin.get(`${ROLES}?limit=${bad}`)).body).toEqual(badInt('limit', bad));
    const overflow = await server.admin.get(`${ROLES}?limit=9223372036854775808`);
    expect([overflow.status, overflow.body.message]).toEqual([400, 'limit: strconv.ParseInt: parsing "9223372036854775808": value out of range']);
  });

  it('timeoutSeconds is decoded for a list too; a watch with a negative one ends at once', async () => {
    expect((await server.admin.get(`${ROLES}?timeoutSeconds=soon`)).body).toEqual(badInt('timeoutSeconds', 'soon'));
    expect((await server.admin.get(`${ROLES}?watch=1&timeoutSeconds=`)).body).toEqual(badInt('timeoutSeconds', ''));
    const watch = await server.admin.stream(`${ROLES}?watch=1&timeoutSeconds=-1&resourceVersion=${(await server.admin.get(ROLES)).body.metadata.resourceVersion}`);
    expect(watch.status).toBe(200);
    await watch.ended;
    expect(watch.events).toEqual([]);
  });

  it('create: repeated options count by their first value (fieldValidation=Strict&fieldValidation=Ignore is strict)', async () => {
    const res = await server.admin.post(`${ROLES}?fieldValidation=Strict&fieldValidation=Ignore`, role('strict', { bogus: 1 }));
    expect([res.status, res.body.reason, res.body.message]).toEqual([400, 'BadRequest', 'Role in version "v1" cannot be handled as a Role: strict decoding error: unknown field "bogus"']);
    const dry = await server.admin.post(`${ROLES}?dryRun=All&dryRun=All`, role('dry'));
    expect(dry.status).toBe(201);
    expect((await server.admin.get(`${ROLES}/dry`)).status).toBe(404);
  });

  it('patch: force is present whatever its value (refused for a merge patch), and decodes by the boolean rule for apply', async () => {
    const forced = await server.admin.patch(`${ROLES}/a?force=false`, { metadata: { labels: { x: 'y' } } }, MERGE);
    expect([forced.status, forced.body.message]).toEqual([422, 'PatchOptions.meta.platform.io "" is invalid: force: Forbidden: may not be specified for non-apply patch']);
    const applied = (manager: string, force: string, verb: string) =>
      server.admin.request('PATCH', `${ROLES}/applied?fieldManager=${manager}&force=${force}`, {
        raw: `apiVersion: rbac.authorization.platform.io/v1\nkind: Role\nmetadata: {name: applied}\nrules: [{apiGroups: [""], resources: [pods], verbs: [${verb}]}]\n`,
        contentType: APPLY,
      });
    expect((await applied('one', 'FALSE', 'get')).status).toBe(201);
    // Another manager's conflicting apply: `False` is no force (409); `yes` is force.
    expect((await applied('two', 'False', 'list')).status).toBe(409);
    expect((await applied('two', 'yes', 'list')).status).toBe(200);
  });

  it('delete: gracePeriodSeconds must be an int64 (a negative one is taken as 1, as kube does); orphanDependents=False is still set', async () => {
    expect((await server.admin.delete(`${ROLES}/b?gracePeriodSeconds=later`)).body).toEqual(badInt('gracePeriodSeconds', 'later'));
    expect((await server.admin.get(`${ROLES}/b`)).status).toBe(200);
    const both = await server.admin.delete(`${ROLES}/b?orphanDependents=False&propagationPolicy=Orphan`);
    expect([both.status, both.body.message]).toEqual([
      422,
      'DeleteOptions.meta.platform.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
    ]);
    const negative = await server.admin.delete(`${ROLES}/b?gracePeriodSeconds=-5`);
    expect([negative.status, negative.body.status]).toEqual([200, 'Success']);
  });

  it('deletecollection decodes ListOptions and DeleteOptions: a bad limit or grace period is 400 and deletes nothing', async () => {
    expect((await server.admin.delete(`${ROLES}?labelSelector=suite%3Dqp&limit=x`)).body).toEqual(badInt('limit', 'x'));
    expect((await server.admin.delete(`${ROLES}?labelSelector=suite%3Dqp&gracePeriodSeconds=x`)).body).toEqual(badInt('gracePeriodSeconds', 'x'));
    expect((await server.admin.get(ROLES)).body.items.map((r: { metadata: { name: string } }) => r.metadata.name)).toEqual(['a', 'applied', 'c']);
  });
});
