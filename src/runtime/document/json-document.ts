import { DocEntry, DocNode } from './document';
import { MAX_NESTING_DEPTH } from './nesting';

/**
 * A JSON parser that keeps what JSON.parse drops (repeated keys, number literals) and
 * reports syntax errors in the words of Go's encoding/json scanner, which is what kube's
 * decoders answer with: `invalid character '}' looking for beginning of object key string`,
 * `invalid character '[' exceeded max depth`.
 */
export class JsonSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

const UNEXPECTED_END = 'unexpected end of JSON input';

/** Go's quoteChar: the offending character in single quotes. */
function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return `'"'`;
  const quoted = JSON.stringify(c);
  return `'${quoted.slice(1, -1)}'`;
}

const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isDigit = (c: string) => c >= '0' && c <= '9';
const isHex = (c: string) => /^[0-9a-fA-F]$/.test(c);

/** An object or array being read: what it holds so far (and, for an object, the key being read). */
type OpenContainer = { kind: 'object'; entries: DocEntry[]; key: string } | { kind: 'array'; items: DocNode[] };

const SIMPLE_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const REPLACEMENT = '\ufffd';

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * Reads values without recursion: open objects and arrays are kept on a stack of their
 * own, and one more than MAX_NESTING_DEPTH fails as Go's scanner fails past its limit.
 */
class Parser {
  private pos = 0;

  constructor(private readonly text: string) {}

  parseDocument(): DocNode {
    this.skipSpace();
    const node = this.value();
    this.skipSpace();
    if (this.pos < this.text.length) this.fail('after top-level value');
    return node;
  }

  private fail(context: string): never {
    if (this.pos >= this.text.length) throw new JsonSyntaxError(UNEXPECTED_END);
    throw new JsonSyntaxError(`invalid character ${quoteChar(this.text[this.pos])} ${context}`);
  }

  private peek(): string {
    return this.text[this.pos] ?? '';
  }

  private skipSpace(): void {
    while (this.pos < this.text.length && isSpace(this.text[this.pos])) this.pos++;
  }

  private value(): DocNode {
    const open: OpenContainer[] = [];
    for (;;) {
      let node: DocNode;
      const c = this.peek();
      if (c === '{' || c === '[') {
        if (open.length >= MAX_NESTING_DEPTH) this.fail('exceeded max depth');
        this.pos++;
        this.skipSpace();
        const closing = c === '{' ? '}' : ']';
        if (this.peek() !== closing) {
          open.push(c === '{' ? { kind: 'object', entries: [], key: this.key() } : { kind: 'array', items: [] });
          continue;
        }
        this.pos++;
        node = c === '{' ? { kind: 'object', entries: [] } : { kind: 'array', items: [] };
      } else node = this.scalar(c);

      // The value is complete: hand it to its container, closing containers that end here.
      for (;;) {
        const parent = open[open.length - 1];
        if (!parent) return node;
        if (parent.kind === 'object') parent.entries.push({ key: parent.key, value: node });
        else parent.items.push(node);
        this.skipSpace();
        const next = this.peek();
        if (next === (parent.kind === 'object' ? '}' : ']')) {
          this.pos++;
          open.pop();
          node = parent.kind === 'object' ? { kind: 'object', entries: parent.entries } : { kind: 'array', items: parent.items };
          continue;
        }
        if (next !== ',') this.fail(parent.kind === 'object' ? 'after object key:value pair' : 'after array element');
        this.pos++;
        this.skipSpace();
        if (parent.kind === 'object') parent.key = this.key();
        break;
      }
    }
  }

  /** An object key and its colon, leaving the position at the value. */
  private key(): string {
    if (this.peek() !== '"') this.fail('looking for beginning of object key string');
    const key = this.string();
    this.skipSpace();
    if (this.peek() !== ':') this.fail('after object key');
    this.pos++;
    this.skipSpace();
    return key;
  }

  private scalar(c: string): DocNode {
    if (c === '"') return { kind: 'string', value: this.string() };
    if (c === '-' || isDigit(c)) return this.number();
    if (c === 't') return this.literal('true', { kind: 'bool', value: true });
    if (c === 'f') return this.literal('false', { kind: 'bool', value: false });
    if (c === 'n') return this.literal('null', { kind: 'null' });
    return this.fail('looking for beginning of value');
  }

  private string(): string {
    this.pos++; // opening quote
    let out = '';
    for (;;) {
      if (this.pos >= this.text.length) this.fail('in string literal');
      const c = this.text[this.pos];
      if (c === '"') {
        this.pos++;
        return out;
      }
      if (c < ' ') this.fail('in string literal');
      if (c !== '\\') {
        out += c;
        this.pos++;
        continue;
      }
      this.pos++;
      const e = this.peek();
      if (Object.hasOwn(SIMPLE_ESCAPES, e)) {
        out += SIMPLE_ESCAPES[e];
        this.pos++;
      } else if (e === 'u') {
        this.pos++;
        out += this.unicodeEscape();
      } else this.fail('in string escape code');
    }
  }

  /**
   * The character of a `\u` escape and its four hex digits (the `\u` already read). As Go
   * decodes it: a high surrogate followed by an escaped low one is one character; any other
   * surrogate is U+FFFD, so no string holds half a pair.
   */
  private unicodeEscape(): string {
    let hex = '';
    for (let i = 0; i < 4; i++) {
      if (!isHex(this.peek())) this.fail('in \\u hexadecimal character escape');
      hex += this.text[this.pos++];
    }
    const code = parseInt(hex, 16);
    if (!isHighSurrogate(code) && !isLowSurrogate(code)) return String.fromCharCode(code);
    const low = /^\\u([0-9a-fA-F]{4})/.exec(this.text.slice(this.pos, this.pos + 6));
    if (isHighSurrogate(code) && low && isLowSurrogate(parseInt(low[1], 16))) {
      this.pos += 6;
      return String.fromCharCode(code, parseInt(low[1], 16));
    }
    return REPLACEMENT;
  }

  private number(): DocNode {
    const start = this.pos;
    if (this.peek() === '-') {
      this.pos++;
      if (!isDigit(this.peek())) this.fail('in numeric literal');
    }
    if (this.peek() === '0') this.pos++;
    else while (isDigit(this.peek())) this.pos++;
    if (this.peek() === '.') {
      this.pos++;
      if (!isDigit(this.peek())) this.fail('after decimal point in numeric literal');
      while (isDigit(this.peek())) this.pos++;
    }
    if (this.peek() === 'e' || this.peek() === 'E') {
      this.pos++;
      if (this.peek() === '+' || this.peek() === '-') this.pos++;
      if (!isDigit(this.peek())) this.fail('in exponent of numeric literal');
      while (isDigit(this.peek())) this.pos++;
    }
    const raw = this.text.slice(start, this.pos);
    return { kind: 'number', raw, value: Number(raw) };
  }

  private literal(word: string, node: DocNode): DocNode {
    for (let i = 0; i < word.length; i++) {
      if (this.peek() !== word[i]) this.fail(`in literal ${word} (expecting ${quoteChar(word[i])})`);
      this.pos++;
    }
    return node;
  }
}

/** Parses JSON text into a document; a syntax error is a JsonSyntaxError with Go's text. */
export function parseJsonDocument(text: string): DocNode {
  return new Parser(text).parseDocument();
}
