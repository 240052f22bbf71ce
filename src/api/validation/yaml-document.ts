import * as YAML from 'yaml';
import { DocEntry, DocNode } from './document';

/**
 * YAML request bodies as kube reads them (sigs.k8s.io/yaml): the first document becomes
 * JSON, a repeated key keeps its last value, and in strict mode the repeats are reported
 * as go-yaml does: `line 4: key "name" already set in map`.
 */
export class YamlSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'YamlSyntaxError';
  }
}

export interface YamlDocument {
  node: DocNode;
  /** go-yaml's strict error for repeated keys, or undefined when no key repeats. */
  duplicateKeysError?: string;
}

/** The prefix kube's YAML-to-JSON conversion puts before go-yaml's messages. */
export const YAML_TO_JSON_PREFIX = 'error converting YAML to JSON: yaml: ';

/** go-yaml's `%#v` of a map key: strings quoted, other scalars as written. */
function goKey(key: unknown): string {
  return typeof key === 'string' ? JSON.stringify(key) : String(key);
}

function keyText(key: unknown): string {
  if (YAML.isScalar(key)) return key.value === null ? 'null' : String(key.value);
  return String(key);
}

class Converter {
  readonly duplicates: string[] = [];

  constructor(
    private readonly doc: YAML.Document,
    private readonly lines: YAML.LineCounter,
  ) {}

  convert(node: unknown): DocNode {
    if (YAML.isAlias(node)) return this.convert(node.resolve(this.doc));
    if (YAML.isMap(node)) {
      const entries: DocEntry[] = [];
      const index = new Map<string, number>();
      for (const pair of node.items) {
        const key = keyText(pair.key);
        const value = this.convert(pair.value);
        const at = index.get(key);
        if (at === undefined) {
          index.set(key, entries.length);
          entries.push({ key, value });
          continue;
        }
        // go-yaml names the line of the repeated key's value.
        const located = YAML.isNode(pair.value) && pair.value.range ? pair.value : pair.key;
        const offset = YAML.isNode(located) && located.range ? located.range[0] : 0;
        const rawKey = YAML.isScalar(pair.key) ? pair.key.value : key;
        this.duplicates.push(`line ${this.lines.linePos(offset).line}: key ${goKey(rawKey)} already set in map`);
        entries[at] = { key, value };
      }
      return { kind: 'object', entries };
    }
    if (YAML.isSeq(node)) return { kind: 'array', items: node.items.map((item) => this.convert(item)) };
    if (YAML.isScalar(node)) return this.scalar(node.value);
    return { kind: 'null' };
  }

  private scalar(value: unknown): DocNode {
    if (value === null || value === undefined) return { kind: 'null' };
    if (typeof value === 'boolean') return { kind: 'bool', value };
    if (typeof value === 'number') return { kind: 'number', raw: JSON.stringify(value), value };
    if (typeof value === 'bigint') return { kind: 'number', raw: value.toString(), value: Number(value) };
    return { kind: 'string', value: String(value) };
  }
}

/** The first line of the YAML library's message, without its position suffix. */
function shortMessage(err: YAML.YAMLError): string {
  const first = err.message.split('\n')[0];
  return first.replace(/ at line \d+, column \d+:?$/, '');
}

/** Parses a YAML body (only its first document, as kube does). */
export function parseYamlDocument(text: string): YamlDocument {
  const lines = new YAML.LineCounter();
  const docs = YAML.parseAllDocuments(text, { uniqueKeys: false, lineCounter: lines });
  const first = Array.isArray(docs) ? docs[0] : undefined;
  if (!first) return { node: { kind: 'null' } };
  const err = first.errors[0];
  if (err) {
    const line = err.linePos?.[0]?.line ?? 1;
    throw new YamlSyntaxError(`${YAML_TO_JSON_PREFIX}line ${line}: ${shortMessage(err)}`);
  }
  const converter = new Converter(first, lines);
  const node = converter.convert(first.contents);
  const duplicateKeysError = converter.duplicates.length
    ? `${YAML_TO_JSON_PREFIX}unmarshal errors:\n${converter.duplicates.map((d) => `  ${d}`).join('\n')}`
    : undefined;
  return { node, duplicateKeysError };
}
