import { startTestServer, TestServer } from '../support/test-server';

/**
 * Writes of large objects run their managed fields, applies and patches on codec threads;
 * a small object's run on the event loop. The same requests on a small and on a large
 * ConfigMap get the same answers: managedFields, 409 conflicts, forced applies, label
 * patches and no-op updates alike.
 */
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';
/** Enough keys for a body past the codec threads' threshold (16 KiB). */
const LARGE_KEYS = 2000;
const SMALL_KEYS = 3;

const keys = (count: number) => Array.from({ length: count }, (_, i) => `key-${i}`);
const data = (count: number, value: string) => Object.fromEntries(keys(count).map((k) => [k, `${value}-${k}`]));
const applyYaml = (name: string, count: number, value: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n` + keys(count).map((k) => `  ${k}: ${value}-${k}\n`).join('');
/** kube's fieldsV1 of the data keys a manager owns; `map`: the data map itself too. */
const dataFields = (count: number, map = true) => ({ 'f:data': { ...(map ? { '.': {} } : {}), ...Object.fromEntries(keys(count).map((k) => [`f:${k}`, {}])) } });

interface ManagedEntry {
  manager: string;
  operation: string;
  fieldsV1: unknown;
}
const owners = (obj: { metadata: { managedFields?: ManagedEntry[] } }) =>
  Object.fromEntries((obj.metadata.managedFields ?? []).map((e) => [`${e.manager}/${e.operation}`, e.fieldsV1]));

describe('writes of large objects', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  for (const [size, count] of [
    ['small', SMALL_KEYS],
    ['large', LARGE_KEYS],
  ] as const) {
    it(`a ${size} ConfigMap: create, conflicting apply, forced apply, label patch and no-op update`, async () => {
      const name = `cm-${size}`;
      const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: data(count, 'one') };
      if (size === 'large') expect(JSON.stringify(body).length).toBeGreaterThan(16 * 1024);

      const created = await server.admin.post(`${CONFIGMAPS}?fieldManager=creator`, body);
      expect(created.status).toBe(201);
      expect(owners(created.body)).toEqual({ 'creator/Update': dataFields(count) });

      const conflict = await server.admin.patch(`${CONFIGMAPS}/${name}?fieldManager=applier`, undefined, APPLY, { raw: applyYaml(name, count, 'two') });
      expect(conflict.status).toBe(409);
      expect(conflict.body.reason).toBe('Conflict');
      expect(conflict.body.details.causes).toHaveLength(count);
      expect(conflict.body.details.causes[0]).toEqual({ reason: 'FieldManagerConflict', message: 'conflict with "creator" using v1', field: '.data.key-0' });

      const forced = await server.admin.patch(`${CONFIGMAPS}/${name}?fieldManager=applier&force=true`, undefined, APPLY, { raw: applyYaml(name, count, 'two') });
      expect(forced.status).toBe(200);
      expect(forced.body.data).toEqual(data(count, 'two'));
      // Every key changed hands; the creator keeps the map itself.
      const afterForce = { 'applier/Apply': dataFields(count, false), 'creator/Update': { 'f:data': {} } };
      expect(owners(forced.body)).toEqual(afterForce);

      const labelled = await server.admin.patch(`${CONFIGMAPS}/${name}?fieldManager=labeler`, { metadata: { labels: { a: 'b' } } }, MERGE);
      expect(labelled.status).toBe(200);
      expect(owners(labelled.body)).toEqual({ ...afterForce, 'labeler/Update': { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } } });

      // The same object again changes nothing: no new resourceVersion.
      const same = await server.admin.put(`${CONFIGMAPS}/${name}?fieldManager=labeler`, labelled.body);
      expect(same.status).toBe(200);
      expect(same.body.metadata.resourceVersion).toBe(labelled.body.metadata.resourceVersion);
      expect(same.body).toEqual(labelled.body);
    }, 120_000);
  }
});
