import * as YAML from 'yaml';
import { DocEntry, DocNode } from './document';
import { MAX_NESTING_DEPTH, YAML_DEPTH_ERROR } from './nesting';

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

/** The prefix kube's YAML-to-JSON conversion puts before its errors, and before go-yaml's. */
const YAML_TO_JSON_ERROR = 'error converting YAML to JSON: ';
export const YAML_TO_JSON_PREFIX = `${YAML_TO_JSON_ERROR}yaml: `;

/** go-yaml's `%#v` of a map key: strings quoted, other scalars as written. */
function goKey(key: unknown): string {
  return typeof key === 'string' ? JSON.stringify(key) : String(key);
}

function keyText(key: unknown): string {
  if (YAML.isScalar(key)) return key.value === null ? 'null' : String(key.value);
  return String(key);
}

/** go-yaml's limits on alias expansion (decode.go): the share of decoded nodes that may come from aliases. */
const ALIAS_RATIO_RANGE_LOW = 400_000;
const ALIAS_RATIO_RANGE_HIGH = 4_000_000;

function allowedAliasRatio(decodeCount: number): number {
  if (decodeCount <= ALIAS_RATIO_RANGE_LOW) return 0.99;
  if (decodeCount >= ALIAS_RATIO_RANGE_HIGH) return 0.1;
  return 0.99 - 0.89 * ((decodeCount - ALIAS_RATIO_RANGE_LOW) / (ALIAS_RATIO_RANGE_HIGH - ALIAS_RATIO_RANGE_LOW));
}

/** A YAML error in go-yaml's words, with the line when go-yaml names one (it omits line 1). */
function yamlError(message: string, line?: number): YamlSyntaxError {
  return new YamlSyntaxError(`${YAML_TO_JSON_PREFIX}${line !== undefined && line > 1 ? `line ${line}: ` : ''}${message}`);
}

const INVALID_ESCAPE = 'found invalid Unicode character escape code';

/** Where a double-quoted scalar escapes a surrogate or a code point beyond Unicode, which go-yaml refuses. */
function invalidEscapeAt(source: string): number | undefined {
  for (let i = source.indexOf('\\'); i >= 0; i = source.indexOf('\\', i + 2)) {
    const width = source[i + 1] === 'u' ? 4 : source[i + 1] === 'U' ? 8 : 0;
    const hex = source.slice(i + 2, i + 2 + width);
    if (!width || !/^[0-9a-fA-F]+$/.test(hex) || hex.length !== width) continue;
    const code = parseInt(hex, 16);
    if ((code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return i;
  }
  return undefined;
}

/**
 * What go-yaml's scanner refuses before anything is built, checked on the syntax tree
 * without recursion (the YAML library composes documents recursively): collections nested
 * deeper than MAX_NESTING_DEPTH and escapes of surrogates.
 */
function checkSyntax(doc: YAML.CST.Document, lines: YAML.LineCounter): void {
  const pending: Array<[YAML.CST.Token | null | undefined, number]> = [[doc.value, 0]];
  while (pending.length) {
    const [token, depth] = pending.pop()!;
    if (!token) continue;
    if (token.type === 'double-quoted-scalar') {
      const at = invalidEscapeAt(token.source);
      if (at !== undefined) throw yamlError(INVALID_ESCAPE, lines.linePos(token.offset + at).line);
    }
    if (!YAML.CST.isCollection(token)) continue;
    if (depth >= MAX_NESTING_DEPTH) throw yamlError(YAML_DEPTH_ERROR, lines.linePos(token.offset).line);
    for (const item of token.items) {
      pending.push([item.key, depth + 1], [item.value, depth + 1]);
    }
  }
}

/**
 * Turns the composed document into a DocNode as go-yaml decodes it into Go values. Aliases
 * name the anchor defined last before them in the document and are expanded where they
 * are used, within go-yaml's bounds: an alias inside its own anchor is refused, and so is
 * a document whose decoded nodes come mostly from aliases (`document contains excessive
 * aliasing`), which keeps the work linear in the size of the body. Expansion may not nest
 * deeper than MAX_NESTING_DEPTH either.
 */
class Converter {
  readonly duplicates: string[] = [];
  /** The node each alias names, resolved in document order before anything is expanded. */
  private readonly targets = new Map<YAML.Alias, YAML.Node>();
  /** The aliases being expanded, to refuse one that contains itself. */
  private readonly expanding = new Set<YAML.Alias>();
  private decodeCount = 0;
  private aliasCount = 0;

  constructor(private readonly lines: YAML.LineCounter) {}

  /** Records what every alias refers to (the tree is no deeper than checkSyntax allows). */
  resolveAliases(node: unknown, anchors = new Map<string, YAML.Node>()): void {
    if (YAML.isAlias(node)) {
      const target = anchors.get(node.source);
      if (!target) throw yamlError(`unknown anchor '${node.source}' referenced`);
      this.targets.set(node, target);
      return;
    }
    if (!YAML.isNode(node)) return;
    if (node.anchor) anchors.set(node.anchor, node);
    if (YAML.isMap(node)) {
      for (const pair of node.items) {
        this.resolveAliases(pair.key, anchors);
        this.resolveAliases(pair.value, anchors);
      }
    } else if (YAML.isSeq(node)) {
      for (const item of node.items) this.resolveAliases(item, anchors);
    }
  }

  convert(node: unknown, depth = 0): DocNode {
    this.decodeCount++;
    if (this.expanding.size > 0) this.aliasCount++;
    if (this.aliasCount > 100 && this.decodeCount > 1000 && this.aliasCount / this.decodeCount > allowedAliasRatio(this.decodeCount)) {
      throw yamlError('document contains excessive aliasing');
    }
    if (YAML.isAlias(node)) return this.expand(node, depth);
    if (YAML.isMap(node)) return this.map(node, depth + 1);
    if (YAML.isSeq(node)) {
      this.checkDepth(depth + 1);
      return { kind: 'array', items: node.items.map((item) => this.convert(item, depth + 1)) };
    }
    if (YAML.isScalar(node)) return this.scalar(node);
    return { kind: 'null' };
  }

  private expand(alias: YAML.Alias, depth: number): DocNode {
    if (this.expanding.has(alias)) throw yamlError(`anchor '${alias.source}' value contains itself`);
    this.expanding.add(alias);
    try {
      return this.convert(this.targets.get(alias), depth);
    } finally {
      this.expanding.delete(alias);
    }
  }

  private checkDepth(depth: number): void {
    if (depth > MAX_NESTING_DEPTH) throw yamlError(YAML_DEPTH_ERROR);
  }

  private map(node: YAML.YAMLMap, depth: number): DocNode {
    this.checkDepth(depth);
    const entries: DocEntry[] = [];
    const index = new Map<string, number>();
    for (const pair of node.items) {
      const key = keyText(pair.key);
      const value = this.convert(pair.value, depth);
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

  private scalar(node: YAML.Scalar): DocNode {
    const value = node.value;
    if (value === null || value === undefined) return { kind: 'null' };
    if (typeof value === 'boolean') return { kind: 'bool', value };
    if (typeof value === 'number' && !Number.isFinite(value)) return this.nonFinite(node, value);
    if (typeof value === 'number') return { kind: 'number', raw: JSON.stringify(value), value };
    if (typeof value === 'bigint') return { kind: 'number', raw: value.toString(), value: Number(value) };
    return { kind: 'string', value: String(value) };
  }

  /**
   * go-yaml reads a number literal too large for a float64 as a string; `.inf` and `.nan`
   * are floats, which kube's conversion to JSON cannot write.
   */
  private nonFinite(node: YAML.Scalar, value: number): DocNode {
    const source = typeof node.source === 'string' ? node.source : '';
    if (!/^[-+]?\.(inf|Inf|INF|nan|NaN|NAN)$/.test(source)) return { kind: 'string', value: source };
    const go = Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf';
    throw new YamlSyntaxError(`${YAML_TO_JSON_ERROR}json: unsupported value: ${go}`);
  }
}

/** The first line of the YAML library's message, without its position suffix. */
function shortMessage(err: YAML.YAMLError): string {
  const first = err.message.split('\n')[0];
  return first.replace(/ at line \d+, column \d+:?$/, '');
}

/** The syntax tree of the stream's first document and what precedes it (directives, comments). */
function firstDocumentTokens(text: string, lines: YAML.LineCounter): { tokens: YAML.CST.Token[]; document?: YAML.CST.Document } {
  const tokens: YAML.CST.Token[] = [];
  let document: YAML.CST.Document | undefined;
  for (const token of new YAML.Parser(lines.addNewLine).parse(text)) {
    if (token.type === 'document') {
      if (document) break;
      document = token;
    }
    tokens.push(token);
  }
  return { tokens, document };
}

/** Parses a YAML body (only its first document, as kube does). */
export function parseYamlDocument(text: string): YamlDocument {
  const lines = new YAML.LineCounter();
  const { tokens, document } = firstDocumentTokens(text, lines);
  if (document) checkSyntax(document, lines);
  const [first] = new YAML.Composer({ uniqueKeys: false }).compose(tokens);
  if (!first) return { node: { kind: 'null' } };
  const err = first.errors[0];
  if (err) throw new YamlSyntaxError(`${YAML_TO_JSON_PREFIX}line ${lines.linePos(err.pos[0]).line}: ${shortMessage(err)}`);
  const converter = new Converter(lines);
  converter.resolveAliases(first.contents);
  const node = converter.convert(first.contents);
  const duplicateKeysError = converter.duplicates.length
    ? `${YAML_TO_JSON_PREFIX}unmarshal errors:\n${converter.duplicates.map((d) => `  ${d}`).join('\n')}`
    : undefined;
  return { node, duplicateKeysError };
}
