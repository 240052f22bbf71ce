import { countKeysIfIntegral, decodeCleanJson } from '../../../src/runtime/schema/clean-json-decoder';
import { docToValue } from '../../../src/runtime/document/document';
import { JsonSyntaxError, parseJsonDocument } from '../../../src/runtime/document/json-document';
import { jsonTextTooDeep, MAX_NESTING_DEPTH, parseJsonWithinDepth, valueTooDeep } from '../../../src/runtime/document/nesting';
import { configMapType } from '../../../src/core/kinds/config-map';
import { thrownMessage } from '../../support/thrown';

const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const objects = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
const nestedValue = (depth: number) => {
  let v: unknown = [];
  for (let i = 1; i < depth; i++) v = [v];
  return v;
};

const syntaxError = (text: string) => thrownMessage(() => parseJsonDocument(text), JsonSyntaxError);

describe('nesting depth of JSON documents', () => {
  it('reads documents up to the limit, objects and arrays alike', () => {
    expect(docToValue(parseJsonDocument(arrays(MAX_NESTING_DEPTH)))).toEqual(nestedValue(MAX_NESTING_DEPTH));
    expect(parseJsonDocument(objects(MAX_NESTING_DEPTH)).kind).toBe('object');
  });

  it("refuses one level more with Go's scanner error, naming the bracket that opens it", () => {
    expect(syntaxError(arrays(MAX_NESTING_DEPTH + 1))).toBe("invalid character '[' exceeded max depth");
    expect(syntaxError(objects(MAX_NESTING_DEPTH + 1))).toBe("invalid character '{' exceeded max depth");
    expect(syntaxError(`{"a":${arrays(MAX_NESTING_DEPTH)}}`)).toBe("invalid character '[' exceeded max depth");
  });

  it('reads far deeper text without running out of stack (the parser keeps its own)', () => {
    expect(syntaxError(arrays(200_000))).toBe("invalid character '[' exceeded max depth");
    expect(syntaxError('['.repeat(200_000))).toBe("invalid character '[' exceeded max depth");
  });

  it('the clean fast path leaves deep bodies to the document decoder', () => {
    const deep = `{"metadata":{"name":"a"},"data":{"k":"v"},"x":${arrays(MAX_NESTING_DEPTH)}}`;
    expect(countKeysIfIntegral(deep)).toBe(-1);
    expect(decodeCleanJson(deep, configMapType.schema)).toBeUndefined();
    expect(countKeysIfIntegral(`{"x":${arrays(MAX_NESTING_DEPTH - 1)}}`)).toBe(1);
  });

  it('scans text and values without recursion', () => {
    expect(jsonTextTooDeep(arrays(MAX_NESTING_DEPTH))).toBeUndefined();
    expect(jsonTextTooDeep(`"[[[[" ${objects(3)}`, 3)).toBeUndefined();
    expect(jsonTextTooDeep(`["\\"[", ${objects(3)}]`, 3)).toBe('{');
    expect(jsonTextTooDeep(arrays(100_000))).toBe('[');
    expect(valueTooDeep(nestedValue(MAX_NESTING_DEPTH))).toBeUndefined();
    expect(valueTooDeep({ a: nestedValue(MAX_NESTING_DEPTH) })).toBe('[');
    expect(valueTooDeep({ a: 1 }, MAX_NESTING_DEPTH, MAX_NESTING_DEPTH - 1)).toBeUndefined();
    expect(valueTooDeep({ a: 1 }, MAX_NESTING_DEPTH, MAX_NESTING_DEPTH)).toBe('{');
    expect(valueTooDeep(nestedValue(100_000))).toBe('[');
    expect(() => parseJsonWithinDepth(arrays(MAX_NESTING_DEPTH + 1))).toThrow(new SyntaxError("invalid character '[' exceeded max depth"));
  });
});

describe('surrogate escapes in JSON strings', () => {
  it("decode as Go decodes them: a pair is one character, half a pair is U+FFFD", () => {
    const value = (text: string) => docToValue(parseJsonDocument(text));
    expect(value('"\\ud83d\\ude00"')).toBe('😀');
    expect(value('"a\\udc00b"')).toBe('a\ufffdb');
    expect(value('"\\ud83d"')).toBe('\ufffd');
    expect(value('"\\ud83dx"')).toBe('\ufffdx');
    expect(value('"\\ud83d\\u0041"')).toBe('\ufffdA');
    expect(value('"\\ud83d\\ud83d\\ude00"')).toBe('\ufffd😀');
  });

  it('the clean fast path leaves them to the document decoder (JSON.parse keeps half pairs)', () => {
    expect(countKeysIfIntegral('{"a":"\\udc00"}')).toBe(-1);
    expect(countKeysIfIntegral('{"a":"\\uD800"}')).toBe(-1);
    expect(countKeysIfIntegral('{"a":"\\u00e9\\\\udc00"}')).toBe(1);
  });
});
