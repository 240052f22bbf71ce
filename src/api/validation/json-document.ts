import { DocEntry, DocNode } from './document';

/**
 * A JSON parser that keeps what JSON.parse drops (repeated keys, number literals) and
 * reports syntax errors in the words of Go's encoding/json scanner, which is what kube's
 * decoders answer with: `invalid character '}' looking for beginning of object key string`.
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
    const c = this.peek();
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return { kind: 'string', value: this.string() };
    if (c === '-' || isDigit(c)) return this.number();
    if (c === 't') return this.literal('true', { kind: 'bool', value: true });
    if (c === 'f') return this.literal('false', { kind: 'bool', value: false });
    if (c === 'n') return this.literal('null', { kind: 'null' });
    return this.fail('looking for beginning of value');
  }

  private object(): DocNode {
    this.pos++; // {
    const entries: DocEntry[] = [];
    this.skipSpace();
    if (this.peek() === '}') {
      this.pos++;
      return { kind: 'object', entries };
    }
    for (;;) {
      if (this.peek() !== '"') this.fail('looking for beginning of object key string');
      const key = this.string();
      this.skipSpace();
      if (this.peek() !== ':') this.fail('after object key');
      this.pos++;
      this.skipSpace();
      entries.push({ key, value: this.value() });
      this.skipSpace();
      const c = this.peek();
      if (c === '}') {
        this.pos++;
        return { kind: 'object', entries };
      }
      if (c !== ',') this.fail('after object key:value pair');
      this.pos++;
      this.skipSpace();
    }
  }

  private array(): DocNode {
    this.pos++; // [
    const items: DocNode[] = [];
    this.skipSpace();
    if (this.peek() === ']') {
      this.pos++;
      return { kind: 'array', items };
    }
    for (;;) {
      items.push(this.value());
      this.skipSpace();
      const c = this.peek();
      if (c === ']') {
        this.pos++;
        return { kind: 'array', items };
      }
      if (c !== ',') this.fail('after array element');
      this.pos++;
      this.skipSpace();
    }
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
      const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (e in simple) {
        out += simple[e];
        this.pos++;
      } else if (e === 'u') {
        this.pos++;
        let hex = '';
        for (let i = 0; i < 4; i++) {
          if (!isHex(this.peek())) this.fail('in \\u hexadecimal character escape');
          hex += this.text[this.pos++];
        }
        out += String.fromCharCode(parseInt(hex, 16));
      } else this.fail('in string escape code');
    }
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
