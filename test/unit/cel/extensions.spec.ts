import { CelEnvironment, Quantity } from '../../../src/cel';

describe('kube CEL extension libraries', () => {
  let env: CelEnvironment;
  beforeAll(async () => {
    env = await CelEnvironment.create({ variables: { s: 'string', ints: 'list<int>' } });
  });
  const run = (expression: string, vars: Record<string, unknown> = {}) => env.compile(expression).evaluate(vars);
  const fails = (expression: string, message: string | RegExp, vars: Record<string, unknown> = {}) =>
    expect(() => run(expression, vars)).toThrow(message);

  describe('lists', () => {
    it.each([
      ['[1, 2, 3].isSorted()', true],
      ["['a', 'b', 'b', 'c'].isSorted()", true],
      ['[2.0, 1.0].isSorted()', false],
      ['[1].isSorted()', true],
      ['[1, 3].sum()', 4n],
      ['[1.0, 3.0].sum()', 4],
      ["[duration('1m'), duration('1s')].sum() == duration('61s')", true],
      ['[1, 3].min()', 1n],
      ['[1, 3].max()', 3n],
      ["['b', 'a', 'c'].max()", 'c'],
      ['[1, 2, 2, 3].indexOf(2)', 1n],
      ["['a', 'b', 'b', 'c'].lastIndexOf('b')", 2n],
      ['[1.0].indexOf(1.1)', -1n],
      ["[timestamp('2024-01-02T00:00:00Z'), timestamp('2023-01-01T00:00:00Z')].min() == timestamp('2023-01-01T00:00:00Z')", true],
    ])('%s', (expression, expected) => expect(run(expression)).toEqual(expected));

    it('sums an empty typed list to zero and errors on min of an empty list', () => {
      expect(run('ints.sum()', { ints: [] })).toBe(0n);
      fails('ints.min()', 'min called on empty list', { ints: [] });
      fails('ints.max()', 'max called on empty list', { ints: [] });
    });
  });

  describe('regex', () => {
    it.each([
      ["'abc 123'.find('[0-9]+')", '123'],
      ["'abc'.find('[0-9]+')", ''],
      ["'123 abc 456'.findAll('[0-9]+')", ['123', '456']],
      ["'123 abc 456'.findAll('[0-9]+', 1)", ['123']],
      ["'123 abc 456'.findAll('[0-9]+', 0)", []],
      ["'123 abc 456'.findAll('xyz')", []],
      ["'ABC'.find('(?i)b')", 'B'],
      ["'ab'.matches('^a')", true],
    ])('%s', (expression, expected) => expect(run(expression)).toEqual(expected));

    it('reports an invalid dynamic pattern at evaluation and a constant one at compile time', () => {
      fails("'abc'.find(s)", /Illegal regex: error parsing regexp/, { s: '[' });
      expect(() => env.compile("'abc'.findAll('(')")).toThrow(/compilation failed: error parsing regexp/);
    });
  });

  describe('URLs', () => {
    it.each([
      ["url('/path').getScheme()", ''],
      ["url('https://example.com/').getScheme()", 'https'],
      ["url('https://example.com:80/').getHost()", 'example.com:80'],
      ["url('https://example.com/').getHost()", 'example.com'],
      ["url('https://[::1]:80/').getHost()", '[::1]:80'],
      ["url('https://[::1]/').getHost()", '[::1]'],
      ["url('/path').getHost()", ''],
      ["url('https://example.com:80/').getHostname()", 'example.com'],
      ["url('https://127.0.0.1:80/').getHostname()", '127.0.0.1'],
      ["url('https://[::1]:80/').getHostname()", '::1'],
      ["url('https://example.com:80/').getPort()", '80'],
      ["url('https://example.com:443/').getPort()", '443'],
      ["url('https://example.com/').getPort()", ''],
      ["url('https://example.com/path').getEscapedPath()", '/path'],
      ["url('https://example.com/path with spaces/').getEscapedPath()", '/path%20with%20spaces/'],
      ["url('https://example.com').getEscapedPath()", ''],
      ["url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}", true],
      ["url('https://example.com/path?key with spaces=value with spaces').getQuery()['key with spaces']", ['value with spaces']],
      ["url('https://example.com/path?').getQuery().size()", 0n],
      ["url('https://user:pass@example.com:80/path?query=val#fragment').getHost()", 'example.com:80'],
      ["isURL('https://user:pass@example.com:80/path?query=val#fragment')", true],
      ["isURL('/absolute-path')", true],
      ["isURL('https://a:b:c/')", false],
      ["isURL('../relative-path')", false],
      ["isURL('')", false],
    ])('%s', (expression, expected) => expect(run(expression)).toEqual(expected));

    it('errors on an invalid URL', () => {
      fails("url('../relative-path')", 'URL parse error during conversion from string: parse "../relative-path": invalid URI for request');
      fails("url('https://a:b:c/')", 'URL parse error during conversion from string: parse "https://a:b:c/": invalid port ":c" after host');
    });
  });

  describe('quantities', () => {
    it.each([
      ["quantity('50k') == quantity('50000')", true],
      ["quantity('1Mi').asInteger()", 1048576n],
      ["quantity('1.5Gi').asInteger()", 1610612736n],
      ["quantity('1000m').isInteger()", true],
      ["quantity('1.5').isInteger()", false],
      ["quantity('50m').asApproximateFloat()", 0.05],
      ["quantity('-1').sign()", -1n],
      ["sign(quantity('0'))", 0n],
      ["quantity('200M').isGreaterThan(quantity('100M'))", true],
      ["quantity('50M').isLessThan(quantity('100M'))", true],
      ["quantity('100M').compareTo(quantity('100M'))", 0n],
      ["quantity('200M').compareTo(quantity('100M'))", 1n],
      ["quantity('50k').add(20).asInteger()", 50020n],
      ["quantity('50k').add(quantity('20k')) == quantity('70k')", true],
      ["quantity('50k').sub(20).asInteger()", 49980n],
      ["quantity('50k').sub(quantity('20k')) == quantity('30k')", true],
      ["quantity('1e3').asInteger()", 1000n],
      ["quantity('1E').asInteger()", 1000000000000000000n],
      ["isQuantity('1.3G')", true],
      ["isQuantity('1.3Gi')", true],
      ["isQuantity('1,3G')", false],
      ["isQuantity('10000k')", true],
      ["isQuantity('200K')", false],
      ["isQuantity('Three')", false],
      ["isQuantity('Mi')", false],
    ])('%s', (expression, expected) => expect(run(expression)).toEqual(expected));

    it('errors on a malformed quantity and on a non-integer asInteger()', () => {
      fails("quantity('Three')", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
      fails("quantity('200K')", "unable to parse quantity's suffix");
      fails("quantity('1.5').asInteger()", 'cannot convert value to integer');
      fails("quantity('100E').asInteger()", 'cannot convert value to integer');
      fails("quantity('Mi')", "quantities must match the regular expression");
    });

    it('rounds below a nano-unit up and caps binary quantities at int64', () => {
      expect(Quantity.parse('0.1n').nanos).toBe(1n);
      expect(Quantity.parse('-0.1n').nanos).toBe(-1n);
      expect(Quantity.parse('1e-20').nanos).toBe(1n);
      expect(Quantity.parse('100Ei').asInteger()).toBe((1n << 63n) - 1n);
      expect(Quantity.parse('100E').asInteger()).toBeUndefined();
      expect(Quantity.parse('100E').nanos).toBe(10n ** 29n);
      expect(Quantity.parse('1.5Ki').asInteger()).toBe(1536n);
      expect(Quantity.parse('.5').toString()).toBe('500m');
    });
  });
});
