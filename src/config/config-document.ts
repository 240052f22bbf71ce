import * as YAML from 'yaml';

/** A JSON object, as Go's decoder reads into a struct. */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The JSON type of a value as Go's decoder names it in errors. */
function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/** The group, versions and kind a configuration file must declare. */
export interface ConfigDocumentKind {
  group: string;
  versions: readonly string[];
  kind: string;
}

/**
 * The first step of kube's configuration-file loaders (authorization, authentication): YAML or
 * JSON to an object whose apiVersion and kind are the expected ones, in kube's error texts.
 * `fail` makes the caller's error type; strict decoding of the fields is the caller's.
 */
export function decodeConfigDocument(data: string, expected: ConfigDocumentKind, fail: (message: string) => Error): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = YAML.parse(data);
  } catch (err) {
    throw fail(`error converting YAML to JSON: yaml: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isObject(doc)) throw fail(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(doc)} into Go value of type struct`);
  const compact = JSON.stringify(doc);
  if (typeof doc.kind !== 'string' || !doc.kind) throw fail(`Object 'Kind' is missing in '${compact}'`);
  if (typeof doc.apiVersion !== 'string' || !doc.apiVersion) throw fail(`Object 'apiVersion' is missing in '${compact}'`);
  const [group, version] = doc.apiVersion.includes('/') ? doc.apiVersion.split('/', 2) : ['', doc.apiVersion];
  if (group !== expected.group || !expected.versions.includes(version) || doc.kind !== expected.kind) {
    throw fail(`no kind ${JSON.stringify(doc.kind)} is registered for version ${JSON.stringify(doc.apiVersion)}`);
  }
  return doc;
}
