import * as fc from 'fast-check';
import { HttpResponse } from '../support/https-client';
import { MAX_NESTING_DEPTH } from '../../src/api/validation/nesting';
import { startTestServer, TestServer } from '../support/test-server';
import { eventually } from '../support/eventually';

/**
 * Property-based fuzzing over HTTPS, seeded so every run sends the same requests: create,
 * update, every patch type and apply with hostile bodies (deep nesting, YAML aliases,
 * NUL, half surrogate pairs, keys such as `__proto__`, numbers beyond float64, broken
 * syntax), lists with hostile query strings, and hostile paths. Every answer comes in
 * time and is below 500; a refused request writes nothing (the store's revision stays).
 * The same requests then run 8 at a time, as a crowd of clients would send them.
 */
const NAMESPACE = 'default';
const CONFIGMAPS = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
const ROLES = `/apis/rbac.authorization.platform.io/v1/namespaces/${NAMESPACE}/roles`;
const SSAR = '/apis/authorization.platform.io/v1/selfsubjectaccessreviews';
const COLLECTIONS = [CONFIGMAPS, ROLES];
const SEED = 20240611;
const SEQUENTIAL_RUNS = 120;
const CONCURRENT_REQUESTS = 200;
const CONCURRENCY = 8;
/** A request answered later than this counts as hung. */
const ANSWER_WITHIN_MS = 20_000;

interface FuzzRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: string;
  contentType?: string;
}

// ---- hostile pieces ------------------------------------------------------------------------

/** Every byte of the text's UTF-8 percent-encoded (encodeURIComponent refuses half a surrogate pair). */
const percent = (text: string) => [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

const hostileText = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', '$patch', '$retainKeys', '.', '', 'a'),
  fc.constantFrom('\u0000', 'a\u0000b', '\udc00', '\ud800x', '😀', '€ζ', '\u0007', '\r\n', '"', '\\', '%', '~1', '/', 'x'.repeat(300)),
  fc.string({ unit: 'binary', maxLength: 12 }),
);

/** JSON values a few levels deep whose keys and strings are hostile. */
const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileText,
    fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(1.5, 2 ** 63, -(2 ** 63), 9007199254740993)),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(hostileText, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** JSON text with a nesting of its own: around the limit, or far beyond it. */
const deepJson = fc
  .tuple(fc.constantFrom(MAX_NESTING_DEPTH - 4, MAX_NESTING_DEPTH, MAX_NESTING_DEPTH + 1, 20_000), fc.boolean(), fc.boolean())
  .map(([depth, objects, closed]) => {
    const open = objects ? '{"a":'.repeat(depth) : '['.repeat(depth);
    const close = objects ? '}'.repeat(depth) : ']'.repeat(depth);
    return open + (objects ? '1' : '') + (closed ? close : '');
  });

/** Literals JSON.stringify cannot write: numbers beyond float64, NUL and half pairs as escapes. */
const rawLiteral = fc.constantFrom('1e400', '-1e999', '123456789012345678901234567890', '"\\u0000"', '"\\udc00"', '"\\ud83d\\ude00"', '0.5e-400');

/** A JSON text for a value: stringified, with raw literals and deep nesting spliced in. */
const jsonText = fc.oneof(
  { weight: 4, arbitrary: hostileValue.map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 2, arbitrary: deepJson },
  { weight: 2, arbitrary: rawLiteral },
);

function objectText(fields: Array<[string, string]>): string {
  return `{${fields.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
}

/** A ConfigMap-ish or Role-ish body with hostile fields (as JSON text). */
const objectBody = fc
  .tuple(
    fc.oneof(fc.constantFrom('fz-new', 'fz'), hostileText),
    fc.array(fc.tuple(fc.oneof(fc.constantFrom('data', 'metadata', 'rules', 'binaryData', 'immutable', 'x'), hostileText), jsonText), { maxLength: 4 }),
    fc.array(fc.tuple(fc.constantFrom('labels', 'annotations', 'generation', 'managedFields', 'resourceVersion', 'finalizers', '__proto__'), jsonText), { maxLength: 3 }),
  )
  .map(([name, fields, meta]) => objectText([['metadata', objectText([['name', JSON.stringify(name)], ...meta])], ...fields]));

/** YAML with anchors and aliases, deep flow nesting, or surrogate escapes. */
const yamlBody = fc.oneof(
  fc.integer({ min: 1, max: 8 }).map((levels) => {
    const lines = ['metadata: {name: fz-yaml}', 'a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i <= levels; i++) lines.push(`a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(',')}]`);
    return lines.join('\n');
  }),
  fc.constantFrom('metadata: {name: fz-yaml}\nx: &x [*x]', 'x: *missing', 'data: {k: "\\udc00"}', 'data: {k: .inf}', 'metadata: {generation: 1.5}', ': : :', '- - -'),
  fc.constantFrom(MAX_NESTING_DEPTH, MAX_NESTING_DEPTH + 1, 5_000).map((depth) => `metadata: {name: fz-yaml}\nx: ${'['.repeat(depth)}${']'.repeat(depth)}`),
  hostileValue.map((v) => `data: ${JSON.stringify(v)}`),
);

const jsonPatchBody = fc
  .array(
    fc.record({
      op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'x'),
      path: fc.oneof(fc.constantFrom('/data/k', '/metadata/__proto__/x', '/metadata/labels/constructor', '/data/-1', '/rules/0', '', '/'), hostileText.map((t) => `/data/${t}`)),
      from: fc.constantFrom('/data', '/metadata', '/data/k', '/nothing'),
      value: jsonText,
    }),
    { maxLength: 5 },
  )
  .map((ops) => `[${ops.map((o) => objectText([['op', JSON.stringify(o.op)], ['path', JSON.stringify(o.path)], ['from', JSON.stringify(o.from)], ['value', o.value]])).join(',')}]`);

/** Broken syntax: a valid body cut short or with garbage in it. */
const broken = (body: fc.Arbitrary<string>) =>
  fc.tuple(body, fc.nat(), fc.constantFrom('', '\u0000', '}', '"', '\\', '\uffff')).map(([text, at, garbage]) => {
    const cut = at % (text.length + 1);
    return text.slice(0, cut) + garbage;
  });

const bodyOf = (json: fc.Arbitrary<string>) => fc.oneof({ weight: 5, arbitrary: json }, { weight: 1, arbitrary: broken(json) });

const segment = fc.oneof(fc.constantFrom('fz', 'fz-role', 'default', '..', '%', '%zz', 'a%00b'), hostileText.map(percent));

const query = fc
  .array(
    fc.tuple(
      fc.constantFrom('limit', 'continue', 'resourceVersion', 'resourceVersionMatch', 'labelSelector', 'fieldSelector', 'fieldValidation', 'dryRun', 'fieldManager', 'force', 'pretty'),
      fc.oneof(fc.constantFrom('99999999999999999999', '-1', '1e3', '0', '1', 'All', 'Strict', 'Exact', 'constructor', 'metadata.name=fz', 'a in (b)', '!a'), hostileText),
    ),
    { maxLength: 3 },
  )
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${percent(v)}`).join('&')}` : ''));

const request: fc.Arbitrary<FuzzRequest> = fc.oneof(
  fc.tuple(fc.constantFrom(...COLLECTIONS), bodyOf(objectBody), query).map(([path, body, q]) => ({ method: 'POST' as const, path: path + q, body, contentType: 'application/json' })),
  fc.tuple(fc.constantFrom(...COLLECTIONS, SSAR), yamlBody).map(([path, body]) => ({ method: 'POST' as const, path, body, contentType: 'application/yaml' })),
  fc.tuple(fc.constantFrom(CONFIGMAPS, ROLES), bodyOf(objectBody)).map(([path, body]) => ({ method: 'PUT' as const, path: `${path}/fz`, body, contentType: 'application/json' })),
  fc.tuple(bodyOf(objectBody), fc.constantFrom('application/merge-patch+json', 'application/strategic-merge-patch+json'), query).map(([body, contentType, q]) => ({
    method: 'PATCH' as const,
    path: `${CONFIGMAPS}/fz${q}`,
    body,
    contentType,
  })),
  fc.tuple(bodyOf(jsonPatchBody), query).map(([body, q]) => ({ method: 'PATCH' as const, path: `${CONFIGMAPS}/fz${q}`, body, contentType: 'application/json-patch+json' })),
  fc.oneof(yamlBody, objectBody).map((body) => ({
    method: 'PATCH' as const,
    path: `${CONFIGMAPS}/fz?fieldManager=fuzz`,
    body: `apiVersion: v1\nkind: ConfigMap\n${body.startsWith('{') ? `spec: ${body}` : body}`,
    contentType: 'application/apply-patch+yaml',
  })),
  fc.tuple(fc.constantFrom(...COLLECTIONS), query).map(([path, q]) => ({ method: 'GET' as const, path: path + q })),
  fc.tuple(segment, segment, fc.constantFrom('GET', 'DELETE') as fc.Arbitrary<'GET' | 'DELETE'>).map(([ns, name, method]) => ({
    method,
    path: `/api/v1/namespaces/${ns}/configmaps/${name === 'fz' ? 'fz-other' : name}`,
  })),
);

// ---- running requests ----------------------------------------------------------------------

async function send(server: TestServer, req: FuzzRequest): Promise<HttpResponse> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_WITHIN_MS} ms: ${show(req)}`)), ANSWER_WITHIN_MS);
  });
  try {
    return await Promise.race([server.admin.request(req.method, req.path, { raw: req.body, contentType: req.contentType }), hung]);
  } finally {
    clearTimeout(timer);
  }
}

function show(req: FuzzRequest): string {
  const body = req.body === undefined ? '' : ` ${req.contentType} ${JSON.stringify(req.body.slice(0, 300))}${req.body.length > 300 ? '...' : ''}`;
  return `${req.method} ${req.path.slice(0, 300)}${body}`;
}

/** The store's newest revision, as a list reports it. */
async function revision(server: TestServer): Promise<string> {
  const res = await server.admin.get(`${CONFIGMAPS}?limit=1`);
  return res.body.metadata.resourceVersion;
}

function checkAnswer(req: FuzzRequest, res: HttpResponse): void {
  if (res.status >= 500) throw new Error(`${res.status} for ${show(req)}: ${res.text.slice(0, 500)}`);
  if (res.status >= 400 && res.body?.kind !== 'Status') throw new Error(`${res.status} without a Status for ${show(req)}: ${res.text.slice(0, 300)}`);
}

describe('fuzzed requests', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
    // The service-account controller writes each namespace's default ServiceAccount after
    // start; the checks below compare the store's revision, so that must be done first.
    await eventually(async () => {
      const namespaces = (await server.admin.get('/api/v1/namespaces')).body.items.map((n: { metadata: { name: string } }) => n.metadata.name);
      const accounts = (await server.admin.get('/api/v1/serviceaccounts')).body.items.map((a: { metadata: { namespace: string } }) => a.metadata.namespace);
      expect(accounts.sort()).toEqual(namespaces.sort());
    }, 30_000);
    expect((await server.admin.post(CONFIGMAPS, { metadata: { name: 'fz' }, data: { k: 'v' } })).status).toBe(201);
    expect((await server.admin.post(ROLES, { metadata: { name: 'fz' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] })).status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('one at a time: every answer in time and below 500; a refused request writes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (req) => {
        const before = await revision(server);
        const res = await send(server, req);
        checkAnswer(req, res);
        if (res.status >= 400 && (await revision(server)) !== before) throw new Error(`${res.status} yet the store moved on: ${show(req)}`);
      }),
      { seed: SEED, numRuns: SEQUENTIAL_RUNS, endOnFailure: true },
    );
    expect((await server.admin.get('/readyz')).status).toBe(200);
  });

  it(`${CONCURRENCY} at a time, deep bodies among them: every answer below 500, and the server stays up`, async () => {
    const deep: FuzzRequest[] = [20_000, 100_000].map((depth) => ({
      method: 'POST',
      path: CONFIGMAPS,
      body: `{"metadata":{"name":"fz-deep"},"x":${'['.repeat(depth)}${']'.repeat(depth)}}`,
      contentType: 'application/json',
    }));
    const requests = fc.sample(request, { seed: SEED + 1, numRuns: CONCURRENT_REQUESTS });
    for (let i = 0; i < requests.length; i += 25) requests.splice(i, 0, deep[(i / 25) % deep.length]);
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const req = requests[next++];
        checkAnswer(req, await send(server, req));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect((await server.admin.get('/readyz')).status).toBe(200);
    for (const accept of ['application/json', 'application/yaml', 'application/vnd.platform.protobuf']) {
      expect([accept, (await server.admin.get(CONFIGMAPS, { headers: { Accept: accept } })).status]).toEqual([accept, 200]);
    }
  });
});
