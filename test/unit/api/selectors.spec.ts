import { parseFieldSelector } from '../../../src/apimachinery/selectors/field-selector';
import { parseLabelSelector, SelectorParseError } from '../../../src/apimachinery/selectors/label-selector';

describe('label selector grammar', () => {
  it.each([
    ['a=b', [{ key: 'a', operator: 'Equals', values: ['b'] }]],
    ['a==b', [{ key: 'a', operator: 'DoubleEquals', values: ['b'] }]],
    ['a!=b', [{ key: 'a', operator: 'NotEquals', values: ['b'] }]],
    ['a', [{ key: 'a', operator: 'Exists', values: [] }]],
    ['!a', [{ key: 'a', operator: 'DoesNotExist', values: [] }]],
    ['a in (x, y)', [{ key: 'a', operator: 'In', values: ['x', 'y'] }]],
    ['a notin (x)', [{ key: 'a', operator: 'NotIn', values: ['x'] }]],
    ['a>5', [{ key: 'a', operator: 'GreaterThan', values: ['5'] }]],
    ['a<5', [{ key: 'a', operator: 'LessThan', values: ['5'] }]],
    ['example.com/app = web, tier', [
      { key: 'example.com/app', operator: 'Equals', values: ['web'] },
      { key: 'tier', operator: 'Exists', values: [] },
    ]],
    ['a=', [{ key: 'a', operator: 'Equals', values: [''] }]],
  ])('%s', (input, requirements) => {
    expect(parseLabelSelector(input).requirements).toEqual(requirements);
  });

  it.each(['a in x', 'a in ()', '=b', 'a=b,', 'a b', 'a>x', 'bad key!=x', 'a=b c', 'a in (x', '!', 'a=-bad-'])('rejects %j', (input) => {
    expect(() => parseLabelSelector(input)).toThrow(SelectorParseError);
  });

  it('matches labels', () => {
    const s = parseLabelSelector('app in (web,api),!legacy,tier!=db,env');
    expect(s.matches({ app: 'web', env: 'prod' })).toBe(true);
    expect(s.matches({ app: 'web', env: 'prod', tier: 'db' })).toBe(false);
    expect(s.matches({ app: 'web', env: 'prod', legacy: '' })).toBe(false);
    expect(s.matches({ app: 'batch', env: 'prod' })).toBe(false);
    expect(s.matches({ app: 'web' })).toBe(false);
    expect(parseLabelSelector('a notin (x)').matches({})).toBe(true);
    expect(parseLabelSelector('n>3').matches({ n: '4' })).toBe(true);
    expect(parseLabelSelector('n>3').matches({ n: 'x' })).toBe(false);
    expect(parseLabelSelector('').matches({ any: 'thing' })).toBe(true);
  });

  it('prints back in canonical form', () => {
    expect(parseLabelSelector('a in (x,y), !b,c==d').toString()).toBe('a in (x,y),!b,c==d');
  });
});

describe('field selector grammar', () => {
  const fields = ['metadata.name', 'metadata.namespace'];

  it('parses =, == and != terms with escapes', () => {
    expect(parseFieldSelector('metadata.name=a,metadata.namespace!=b', fields).requirements).toEqual([
      { field: 'metadata.name', operator: 'Equals', value: 'a' },
      { field: 'metadata.namespace', operator: 'NotEquals', value: 'b' },
    ]);
    expect(parseFieldSelector('metadata.name==a\\,b', fields).requirements[0].value).toBe('a,b');
  });

  it('rejects unsupported fields and bad syntax', () => {
    expect(() => parseFieldSelector('spec.x=a', fields)).toThrow('field label not supported: spec.x');
    expect(() => parseFieldSelector('metadata.name', fields)).toThrow(SelectorParseError);
    expect(() => parseFieldSelector('=a', fields)).toThrow(SelectorParseError);
  });

  it('matches fields and exposes an exact name', () => {
    const s = parseFieldSelector('metadata.name=x,metadata.namespace!=kube-system', fields);
    expect(s.matches({ 'metadata.name': 'x', 'metadata.namespace': 'default' })).toBe(true);
    expect(s.matches({ 'metadata.name': 'x', 'metadata.namespace': 'kube-system' })).toBe(false);
    expect(s.exactValue('metadata.name')).toBe('x');
    expect(parseFieldSelector('metadata.name!=x', fields).exactValue('metadata.name')).toBeUndefined();
  });
});
