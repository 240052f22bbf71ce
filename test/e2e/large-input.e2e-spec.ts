import { BIG_RULES, HEAVY_CONFIGMAPS, HEAVY_NAMESPACE, HEAVY_ROLES, HeavyInput, heavyInputs, PATCHED_CONFIGMAP } from '../../bench/heavy-inputs';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * The largest requests the server accepts (bench/heavy-inputs.ts: 3 MB bodies, Roles of
 * 30,000 rules, a JSON patch of 10,000 operations, nesting far beyond the limit, lists of the
 * big Roles in every format) each get their answer, and the server stays alive meanwhile: a
 * liveness probe asking /livez all along is answered 200 every time. How long the event loop
 * is held is the stall benchmark's to measure (`npm run bench -- stalls`).
 */
const LIVEZ_EVERY_MS = 10;

describe('large input', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
    expect((await server.admin.post('/api/v1/namespaces', { metadata: { name: HEAVY_NAMESPACE } })).status).toBe(201);
    expect((await server.admin.post(HEAVY_CONFIGMAPS, { metadata: { name: PATCHED_CONFIGMAP }, data: { k: 'v' } })).status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
  });

  const send = (input: HeavyInput) =>
    server.admin.request(input.method, input.path, { raw: input.body, contentType: input.contentType, headers: input.accept ? { Accept: input.accept } : {} });

  /** Asks /livez (a connection each time) until `until` settles; answers every status it got. */
  async function livezWhile(until: Promise<unknown>): Promise<number[]> {
    let done = false;
    void until.finally(() => (done = true)).catch(() => undefined);
    const statuses: number[] = [];
    while (!done) {
      statuses.push((await server.anonymous.get('/livez')).status);
      await new Promise((resolve) => setTimeout(resolve, LIVEZ_EVERY_MS));
    }
    return statuses;
  }

  it('answers each heavy input as it should while /livez answers 200 all along', async () => {
    const answers: Array<[string, number, string | undefined]> = [];
    const run = (async () => {
      for (const input of heavyInputs()) {
        const res = await send(input);
        answers.push([input.label, res.status, res.status >= 400 ? res.body?.reason : undefined]);
      }
    })();
    const livez = await livezWhile(run);
    await run;
    expect(answers).toEqual(heavyInputs().map((input) => [input.label, input.status, input.reason]));
    expect(livez.length).toBeGreaterThan(0);
    expect(livez.filter((status) => status !== 200)).toEqual([]);
  }, 600_000);

  it('the big Roles are stored whole and read back the same in every format', async () => {
    const json = await server.admin.get(`${HEAVY_ROLES}/big-json`);
    expect(json.body.rules).toHaveLength(BIG_RULES);
    expect(json.body.rules[BIG_RULES - 1]).toEqual({ apiGroups: [''], resources: ['pods'], verbs: ['list'], resourceNames: [`pod-0${BIG_RULES - 1}`] });
    const applied = await server.admin.get(`${HEAVY_ROLES}/big-applied`);
    expect(applied.body.rules.every((rule: { verbs: string[] }) => rule.verbs[0] === 'watch')).toBe(true);
    expect(applied.body.metadata.managedFields.map((m: { manager: string; operation: string }) => [m.manager, m.operation])).toEqual([['bench', 'Apply']]);

    const list = await server.admin.get(HEAVY_ROLES);
    expect(list.body.items.map((r: { metadata: { name: string }; rules: unknown[] }) => [r.metadata.name, r.rules.length])).toEqual([
      ['big-applied', BIG_RULES],
      ['big-json', BIG_RULES],
      ['big-yaml', BIG_RULES],
    ]);
    // Written a slice at a time, the list is the same text JSON.stringify makes of it.
    expect(list.text).toBe(JSON.stringify(list.body) + '\n');
    const yaml = await server.admin.get(`${HEAVY_ROLES}/big-json`, { headers: { Accept: 'application/yaml' } });
    expect(yaml.headers['content-type']).toBe('application/yaml');
    expect(yaml.text.startsWith('apiVersion: rbac.authorization.platform.io/v1\nkind: Role\nmetadata:\n')).toBe(true);
    expect(yaml.text).toContain(`    - pod-0${BIG_RULES - 1}\n`);
    const gzipped = await server.admin.get(HEAVY_ROLES, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
  }, 120_000);

  it('keeps answering', async () => {
    expect((await server.admin.get('/readyz')).status).toBe(200);
  });
});
