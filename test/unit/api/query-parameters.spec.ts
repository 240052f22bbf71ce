import {
  CREATE_OPTIONS,
  decodeQueryParameters,
  DELETE_OPTIONS,
  GET_OPTIONS,
  LIST_OPTIONS,
  ParameterSchema,
  PATCH_OPTIONS,
  UPDATE_OPTIONS,
} from '../../../src/registry/options/query-parameters';
import { statusOf } from '../../support/status-of';

/**
 * Every option of every verb's options kind through the one decoder, with the values kube's
 * conversions treat specially: booleans by the rule of Convert_Slice_string_To_bool, integers
 * by strconv.ParseInt, repeated parameters by their first value.
 */
const KINDS: Record<string, ParameterSchema> = {
  'get (GetOptions)': GET_OPTIONS,
  'list, watch, deletecollection (ListOptions)': LIST_OPTIONS,
  'create (CreateOptions)': CREATE_OPTIONS,
  'update (UpdateOptions)': UPDATE_OPTIONS,
  'patch (PatchOptions)': PATCH_OPTIONS,
  'delete, deletecollection (DeleteOptions)': DELETE_OPTIONS,
};

const FALSE_VALUES = ['0', 'false', 'False', 'FALSE', 'fAlSe'];
const TRUE_VALUES = ['1', 'true', 'True', 'TRUE', '', 'yes', 'no', 'f', 't', 'off', '2', ' false', 'false '];
const INT_VALUES: Array<[string, number]> = [
  ['0', 0],
  ['30', 30],
  ['+7', 7],
  ['-1', -1],
  ['007', 7],
  ['9223372036854775807', 9223372036854775807],
  ['-9223372036854775808', -9223372036854775808],
];
const INT_SYNTAX_ERRORS = ['', 'abc', '1.5', '1e3', '0x10', ' 1', '1 ', '1_000', '--1', '+', '١'];
const INT_RANGE_ERRORS = ['9223372036854775808', '-9223372036854775809', '99999999999999999999999'];

const refusal = (fn: () => unknown) => {
  const err = statusOf(fn);
  return { code: err.code, reason: err.reason, message: err.message, causes: err.details?.causes };
};

describe.each(Object.entries(KINDS))('%s', (_kind, schema) => {
  const fields = Object.entries(schema);

  it('decodes nothing from an empty query: false booleans, no strings, no integers, empty lists', () => {
    const decoded = decodeQueryParameters({}, schema) as Record<string, unknown>;
    for (const [name, type] of fields) {
      if (type === 'bool') expect(decoded[name]).toBe(false);
      else if (type === 'strings') expect(decoded[name]).toEqual([]);
      else expect(decoded[name]).toBeUndefined();
    }
  });

  it('ignores parameters the kind does not declare', () => {
    const decoded = decodeQueryParameters({ nonsense: 'x', pretty: 'maybe', ...(schema.limit ? {} : { limit: 'abc' }) }, schema);
    expect(Object.keys(decoded).sort()).toEqual(Object.keys(schema).sort());
  });

  for (const [name, type] of fields) {
    const one = (value: unknown) => (decodeQueryParameters({ [name]: value }, schema) as Record<string, unknown>)[name];
    switch (type) {
      case 'bool':
      case 'optionalBool':
        it(`${name}: only 0 and false (any case) are false; every other value is true, the empty one included`, () => {
          for (const v of FALSE_VALUES) expect([v, one(v)]).toEqual([v, false]);
          for (const v of TRUE_VALUES) expect([v, one(v)]).toEqual([v, true]);
          expect(one(undefined)).toBe(type === 'bool' ? false : undefined);
        });
        it(`${name}: a repeated parameter counts by its first value`, () => {
          expect(one(['1', '0'])).toBe(true);
          expect(one(['0', '1'])).toBe(false);
          expect(one(['', 'false'])).toBe(true);
        });
        break;
      case 'int64':
      case 'optionalInt64':
        it(`${name}: strconv.ParseInt, base 10, int64; negatives are numbers`, () => {
          for (const [v, n] of INT_VALUES) expect([v, one(v)]).toEqual([v, n]);
          expect(one(['5', 'x'])).toBe(5);
        });
        it(`${name}: anything else, the empty value included, is 400 BadRequest naming the parameter`, () => {
          for (const v of INT_SYNTAX_ERRORS) {
            const goError = `strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`;
            expect(refusal(() => one(v))).toEqual({
              code: 400,
              reason: 'BadRequest',
              message: `${name}: ${goError}`,
              causes: [{ reason: 'FieldValueInvalid', message: goError, field: name }],
            });
          }
          for (const v of INT_RANGE_ERRORS) {
            expect(refusal(() => one(v)).message).toBe(`${name}: strconv.ParseInt: parsing "${v}": value out of range`);
          }
          // The first value is the one converted: a bad second value is never read.
          expect(refusal(() => one(['x', '5'])).message).toBe(`${name}: strconv.ParseInt: parsing "x": invalid syntax`);
        });
        break;
      case 'string':
        it(`${name}: the first value, as sent (empty included)`, () => {
          expect(one('a b')).toBe('a b');
          expect(one('')).toBe('');
          expect(one(['first', 'second'])).toBe('first');
        });
        break;
      case 'strings':
        it(`${name}: every value, in order`, () => {
          expect(one('All')).toEqual(['All']);
          expect(one(['All', ''])).toEqual(['All', '']);
        });
        break;
    }
  }
});

describe('the order of errors', () => {
  it("the first bad field in the kind's declaration order is reported (ListOptions: timeoutSeconds before limit)", () => {
    expect(refusal(() => decodeQueryParameters({ limit: 'x', timeoutSeconds: 'y' }, LIST_OPTIONS)).message).toBe(
      'timeoutSeconds: strconv.ParseInt: parsing "y": invalid syntax',
    );
  });

  it('keys named like Object members are ordinary parameters', () => {
    const query = Object.assign(Object.create(null) as Record<string, unknown>, { constructor: 'x', __proto__: 'y' });
    expect(decodeQueryParameters(query, LIST_OPTIONS)).toMatchObject({ watch: false, limit: undefined });
    expect(decodeQueryParameters({}, { constructor: 'string' } as const)).toEqual({ constructor: undefined });
  });
});
