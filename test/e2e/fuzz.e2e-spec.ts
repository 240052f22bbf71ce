import * as fc from 'fast-check';
import { HttpResponse } from '../support/https-client';
import { FUZZ_CONFIGMAPS as CONFIGMAPS, FUZZ_ROLES as ROLES, FuzzRequest, fuzzRequest as request } from '../../bench/fuzz-requests';
import { startTestServer, TestServer } from '../support/test-server';
import { eventually } from '../support/eventually';

/**
 * Property-based fuzzing over HTTPS, seeded so every run sends the same requests (the
 * hostile requests of bench/fuzz-requests.ts, shared with the benchmarks). Every answer comes in
 * time and is below 500; a refused request writes nothing (the store's revision stays).
 * The same requests then run 8 at a time, as a crowd of clients would send them.
 */
const SEED = 20240611;
const SEQUENTIAL_RUNS = 120;
const CONCURRENT_REQUESTS = 200;
const CONCURRENCY = 8;
/** A request answered later than this counts as hung. */
const ANSWER_WITHIN_MS = 20_000;

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
    // The access-history leader writes its checkpoint within a second of an RBAC change (the
    // fuzz makes some): the checks below compare the store's revision, so it does not run here.
    server = await startTestServer({ options: { controllers: ['*', '-access-history'] } });
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
