import { JsonSyntaxError, parseJsonDocument } from '../../../src/runtime/document/json-document';
import { docToValue, duplicateFields } from '../../../src/runtime/document/document';
import { thrownMessage } from '../../support/thrown';

const syntaxError = (text: string) => thrownMessage(() => parseJsonDocument(text), JsonSyntaxError);

describe('JSON documents', () => {
  it('parses what JSON.parse parses, keeping repeated keys and number literals', () => {
    const text = '{"a":[1,2.50,{"b":null}],"c":"\\u00e9\\n","d":true,"a":-0.5e3}';
    const doc = parseJsonDocument(text);
    expect(doc.kind === 'object' && doc.entries.map((e) => e.key)).toEqual(['a', 'c', 'd', 'a']);
    expect(docToValue(doc)).toEqual(JSON.parse(text));
    expect(doc.kind === 'object' && doc.entries[3].value).toEqual({ kind: 'number', raw: '-0.5e3', value: -500 });
  });

  it.each([
    ['', 'unexpected end of JSON input'],
    ['{"a":', 'unexpected end of JSON input'],
    ['x', "invalid character 'x' looking for beginning of value"],
    ['{a:1}', "invalid character 'a' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['[1 2]', "invalid character '2' after array element"],
    ['{} x', "invalid character 'x' after top-level value"],
    ['"\\x"', "invalid character 'x' in string escape code"],
    ['-x', "invalid character 'x' in numeric literal"],
    ['1.x', "invalid character 'x' after decimal point in numeric literal"],
    ['tru', 'unexpected end of JSON input'],
    ['nul!', "invalid character '!' in literal null (expecting 'l')"],
    ['"a\tb"', "invalid character '\\t' in string literal"],
  ])('%j: %s', (text, message) => {
    expect(syntaxError(text)).toBe(message);
  });

  it('lists every repeated key at any depth', () => {
    const doc = parseJsonDocument('{"a":{"b":1,"b":2},"l":[{"c":1,"c":1}],"a":{}}');
    expect(duplicateFields(doc)).toEqual(['duplicate field "a.b"', 'duplicate field "l[0].c"', 'duplicate field "a"']);
  });
});
