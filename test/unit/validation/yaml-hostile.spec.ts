import { docToValue } from '../../../src/runtime/document/document';
import { MAX_NESTING_DEPTH } from '../../../src/runtime/document/nesting';
import { parseYamlDocument, YamlSyntaxError } from '../../../src/runtime/document/yaml-document';
import { thrownMessage } from '../../support/thrown';

const yamlError = (text: string) => thrownMessage(() => parseYamlDocument(text), YamlSyntaxError);

const value = (text: string) => docToValue(parseYamlDocument(text).node);

/** Anchors that each hold ten aliases of the one before: 10^levels strings from a few hundred bytes. */
function aliasBomb(levels: number): string {
  const lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i <= levels; i++) lines.push(`a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(',')}]`);
  return lines.join('\n');
}

describe('YAML bodies beyond what go-yaml accepts', () => {
  it('nest up to the limit, and one level more is refused with the line, as go-yaml words it', () => {
    const flow = (depth: number) => `a: 1\nb: ${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}\n`;
    expect(value(flow(MAX_NESTING_DEPTH))).toHaveProperty('b');
    expect(yamlError(flow(MAX_NESTING_DEPTH + 1))).toBe(`error converting YAML to JSON: yaml: line 2: exceeded max depth of ${MAX_NESTING_DEPTH}`);
    // go-yaml names no line for line 1.
    expect(yamlError('['.repeat(MAX_NESTING_DEPTH + 1))).toBe(`error converting YAML to JSON: yaml: exceeded max depth of ${MAX_NESTING_DEPTH}`);
    expect(yamlError(`x:\n${'- '.repeat(MAX_NESTING_DEPTH)}y\n`)).toBe(`error converting YAML to JSON: yaml: line 2: exceeded max depth of ${MAX_NESTING_DEPTH}`);
  });

  it('far deeper documents fail the same way instead of running out of stack', () => {
    expect(yamlError('['.repeat(100_000))).toMatch(/exceeded max depth of/);
    expect(yamlError('- '.repeat(100_000) + 'x')).toMatch(/exceeded max depth of/);
  });

  it('aliases expand where they are used, within go-yaml\'s alias budget', () => {
    expect(value('a: &x {k: v}\nb: *x\nc: [*x, *x]')).toEqual({ a: { k: 'v' }, b: { k: 'v' }, c: [{ k: 'v' }, { k: 'v' }] });
    expect(value(aliasBomb(2))).toHaveProperty('a2');
    expect(yamlError(aliasBomb(6))).toBe('error converting YAML to JSON: yaml: document contains excessive aliasing');
    expect(yamlError(aliasBomb(30))).toBe('error converting YAML to JSON: yaml: document contains excessive aliasing');
  });

  it('an alias names the anchor defined before it; one inside its own anchor or of no anchor is refused', () => {
    expect(value('a: &x 1\nb: *x\nc: &x 2\nd: *x')).toEqual({ a: 1, b: 1, c: 2, d: 2 });
    expect(yamlError('a: &x [1, *x]')).toBe("error converting YAML to JSON: yaml: anchor 'x' value contains itself");
    expect(yamlError('a: *nope')).toBe("error converting YAML to JSON: yaml: unknown anchor 'nope' referenced");
    expect(yamlError('a: *later\nb: &later 1')).toBe("error converting YAML to JSON: yaml: unknown anchor 'later' referenced");
  });

  it('alias chains may not expand deeper than the limit either', () => {
    // Enough plain nodes first that the aliases stay within their budget.
    const lines = [`pad: [${Array(5000).fill('1').join(',')}]`, 'a0: &a0 [x]'];
    for (let i = 1; i <= MAX_NESTING_DEPTH; i++) lines.push(`a${i}: &a${i} [*a${i - 1}]`);
    expect(yamlError(lines.join('\n'))).toBe(`error converting YAML to JSON: yaml: exceeded max depth of ${MAX_NESTING_DEPTH}`);
  });

  it('escapes of surrogates or beyond Unicode are refused, as go-yaml refuses them', () => {
    expect(yamlError('a: 1\nb: "x\\udc00"')).toBe('error converting YAML to JSON: yaml: line 2: found invalid Unicode character escape code');
    expect(yamlError('b: "\\U0000D800"')).toBe('error converting YAML to JSON: yaml: found invalid Unicode character escape code');
    expect(yamlError('b: "\\UFFFFFFFF"')).toBe('error converting YAML to JSON: yaml: found invalid Unicode character escape code');
    expect(value('b: "\\\\udc00 \\u00e9 \\U0001F600"')).toEqual({ b: '\\udc00 é 😀' });
  });

  it('infinities cannot become JSON; a literal too large for a float stays the text go-yaml reads', () => {
    expect(yamlError('a: .inf')).toBe('error converting YAML to JSON: json: unsupported value: +Inf');
    expect(yamlError('a: -.Inf')).toBe('error converting YAML to JSON: json: unsupported value: -Inf');
    expect(yamlError('a: .nan')).toBe('error converting YAML to JSON: json: unsupported value: NaN');
    expect(value('a: 1e400')).toEqual({ a: '1e400' });
  });

  it('keys named like inherited members are ordinary keys', () => {
    const decoded = value('__proto__: {polluted: true}\nconstructor: c\ntoString: t') as Record<string, unknown>;
    expect(Object.keys(decoded)).toEqual(['__proto__', 'constructor', 'toString']);
    expect((decoded as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
