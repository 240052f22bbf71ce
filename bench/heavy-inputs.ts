/**
 * The largest requests the server accepts, each one alone enough to hold a careless event
 * loop for seconds: bodies near the 3 MiB limit, a Role of 30,000 rules, a JSON patch of
 * 20,000 operations, nesting far beyond the decoders' limit, small patches and applies to
 * the big Roles, and lists of those big Roles in each format. The stall benchmark
 * (bench/stalls.ts) times /livez while each runs alone; the e2e test
 * (test/e2e/large-input.e2e-spec.ts) checks that each still gets its answer.
 */
export const HEAVY_NAMESPACE = 'heavy';
export const HEAVY_CONFIGMAPS = `/api/v1/namespaces/${HEAVY_NAMESPACE}/configmaps`;
export const HEAVY_ROLES = `/apis/rbac.authorization.platform.io/v1/namespaces/${HEAVY_NAMESPACE}/roles`;
/** The ConfigMap the JSON patch tests, created before the inputs run. */
export const PATCHED_CONFIGMAP = 'patched';
export const BIG_RULES = 30_000;

const JSON_MEDIA = 'application/json';
const YAML_MEDIA = 'application/yaml';
const TABLE = 'application/json;as=Table;g=meta.platform.io;v=v1';

export interface HeavyInput {
  label: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  path: string;
  body?: string;
  contentType?: string;
  accept?: string;
  /** The status the server must answer. */
  status: number;
  /** The Status reason of a refusal. */
  reason?: string;
}

const pad = (i: number) => String(i).padStart(6, '0');

/** `keys` keys of `valueLength` characters each: 60,000 of 40 make a 3 MB body. */
function configMapData(keys: number, valueLength: number): Record<string, string> {
  const data: Record<string, string> = {};
  const value = 'v'.repeat(valueLength);
  for (let i = 0; i < keys; i++) data[`key-${pad(i)}`] = value;
  return data;
}

function yamlConfigMap(name: string, keys: number, valueLength: number): string {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', `  name: ${name}`, 'data:'];
  const value = 'v'.repeat(valueLength);
  for (let i = 0; i < keys; i++) lines.push(`  key-${pad(i)}: ${value}`);
  return lines.join('\n') + '\n';
}

/** A Role of `rules` rules, each naming one object: 30,000 make 1.7 MB of JSON. */
export function bigRole(name: string, rules = BIG_RULES, verb = 'get'): Record<string, unknown> {
  return {
    apiVersion: 'rbac.authorization.platform.io/v1',
    kind: 'Role',
    metadata: { name },
    rules: Array.from({ length: rules }, (_, i) => ({ apiGroups: [''], resources: ['pods'], verbs: [verb], resourceNames: [`pod-${pad(i)}`] })),
  };
}

function yamlRole(name: string, rules: number, verb: string): string {
  const lines = ['apiVersion: rbac.authorization.platform.io/v1', 'kind: Role', 'metadata:', `  name: ${name}`, 'rules:'];
  for (let i = 0; i < rules; i++) lines.push(`- apiGroups: [""]`, `  resources: [pods]`, `  verbs: [${verb}]`, `  resourceNames: [pod-${pad(i)}]`);
  return lines.join('\n') + '\n';
}

function jsonPatchOfTests(operations: number): string {
  return JSON.stringify(Array.from({ length: operations }, () => ({ op: 'test', path: '/data/k', value: 'v' })));
}

/** The heavy inputs in the order they run; the lists come after the Roles they list. */
export function heavyInputs(): HeavyInput[] {
  const deep = 20_000;
  return [
    { label: 'YAML ConfigMap, 60,000 keys (3 MB)', method: 'POST', path: HEAVY_CONFIGMAPS, body: yamlConfigMap('too-big-yaml', 60_000, 36), contentType: YAML_MEDIA, status: 422, reason: 'Invalid' },
    { label: 'JSON ConfigMap, 60,000 keys (3 MB)', method: 'POST', path: HEAVY_CONFIGMAPS, body: JSON.stringify({ metadata: { name: 'too-big-json' }, data: configMapData(60_000, 34) }), contentType: JSON_MEDIA, status: 422, reason: 'Invalid' },
    { label: 'JSON Role, 30,000 rules (1.7 MB)', method: 'POST', path: HEAVY_ROLES, body: JSON.stringify(bigRole('big-json')), contentType: JSON_MEDIA, status: 201 },
    { label: 'YAML Role, 30,000 rules', method: 'POST', path: HEAVY_ROLES, body: yamlRole('big-yaml', BIG_RULES, 'get'), contentType: YAML_MEDIA, status: 201 },
    { label: 'PUT Role, 30,000 rules', method: 'PUT', path: `${HEAVY_ROLES}/big-json`, body: JSON.stringify(bigRole('big-json', BIG_RULES, 'list')), contentType: JSON_MEDIA, status: 200 },
    { label: 'apply Role, 30,000 rules (new)', method: 'PATCH', path: `${HEAVY_ROLES}/big-applied?fieldManager=bench`, body: yamlRole('big-applied', BIG_RULES, 'get'), contentType: 'application/apply-patch+yaml', status: 201 },
    { label: 'apply Role, 30,000 rules (changed)', method: 'PATCH', path: `${HEAVY_ROLES}/big-applied?fieldManager=bench`, body: yamlRole('big-applied', BIG_RULES, 'watch'), contentType: 'application/apply-patch+yaml', status: 200 },
    { label: 'merge patch Role, 30,000 rules', method: 'PATCH', path: `${HEAVY_ROLES}/big-yaml`, body: JSON.stringify({ rules: bigRole('x', BIG_RULES, 'watch').rules }), contentType: 'application/merge-patch+json', status: 200 },
    // Small requests to a large object: the object's size, not the body's, is the work.
    { label: 'merge patch a label onto a Role of 30,000 rules', method: 'PATCH', path: `${HEAVY_ROLES}/big-yaml`, body: JSON.stringify({ metadata: { labels: { touched: 'yes' } } }), contentType: 'application/merge-patch+json', status: 200 },
    { label: 'apply a label to a Role of 30,000 rules', method: 'PATCH', path: `${HEAVY_ROLES}/big-json?fieldManager=labeler`, body: 'apiVersion: rbac.authorization.platform.io/v1\nkind: Role\nmetadata:\n  name: big-json\n  labels: {touched: "yes"}\n', contentType: 'application/apply-patch+yaml', status: 200 },
    { label: 'JSON patch, 10,000 test operations', method: 'PATCH', path: `${HEAVY_CONFIGMAPS}/${PATCHED_CONFIGMAP}`, body: jsonPatchOfTests(10_000), contentType: 'application/json-patch+json', status: 200 },
    // Beyond kube's limit of 10,000 operations.
    { label: 'JSON patch, 20,000 test operations', method: 'PATCH', path: `${HEAVY_CONFIGMAPS}/${PATCHED_CONFIGMAP}`, body: jsonPatchOfTests(20_000), contentType: 'application/json-patch+json', status: 413, reason: 'RequestEntityTooLarge' },
    { label: `YAML nested ${deep} deep`, method: 'POST', path: HEAVY_CONFIGMAPS, body: `metadata: {name: deep}\nx: ${'['.repeat(deep)}${']'.repeat(deep)}\n`, contentType: YAML_MEDIA, status: 400, reason: 'BadRequest' },
    { label: 'JSON nested 100,000 deep', method: 'POST', path: HEAVY_CONFIGMAPS, body: `{"metadata":{"name":"deep"},"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, contentType: JSON_MEDIA, status: 400, reason: 'BadRequest' },
    { label: 'GET Role of 30,000 rules as YAML', method: 'GET', path: `${HEAVY_ROLES}/big-json`, accept: YAML_MEDIA, status: 200 },
    { label: 'list 3 Roles of 30,000 rules, JSON', method: 'GET', path: HEAVY_ROLES, accept: JSON_MEDIA, status: 200 },
    { label: 'list 3 Roles of 30,000 rules, YAML', method: 'GET', path: HEAVY_ROLES, accept: YAML_MEDIA, status: 200 },
    { label: 'list 3 Roles of 30,000 rules, Table', method: 'GET', path: HEAVY_ROLES, accept: TABLE, status: 200 },
    { label: 'list 3 Roles of 30,000 rules, protobuf', method: 'GET', path: HEAVY_ROLES, accept: 'application/vnd.platform.protobuf', status: 200 },
  ];
}
