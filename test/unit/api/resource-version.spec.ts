import { getSemantics, listSemantics, watchSemantics } from '../../../src/registry/options/resource-version';
import { StatusError } from '../../../src/apimachinery/errors';

function code(fn: () => unknown): number {
  try {
    fn();
    return 0;
  } catch (err) {
    return (err as StatusError).code;
  }
}

describe('get resourceVersion semantics', () => {
  it.each([
    [undefined, { kind: 'MostRecent' }],
    ['', { kind: 'MostRecent' }],
    ['0', { kind: 'Any' }],
    ['42', { kind: 'NotOlderThan', revision: '42' }],
  ])('rv=%j', (rv, expected) => expect(getSemantics(rv)).toEqual(expected));

  it('rejects a version that is not a number', () => {
    expect(code(() => getSemantics('abc'))).toBe(400);
    expect(code(() => getSemantics('-1'))).toBe(400);
  });
});

describe('list resourceVersion semantics (every row of the table)', () => {
  // [resourceVersionMatch, limit, continue, rv, expected or 400]
  const rows: Array<[string | undefined, number | undefined, string | undefined, string | undefined, object | 400]> = [
    // match unset, limit unset
    [undefined, undefined, undefined, undefined, { kind: 'MostRecent' }],
    [undefined, undefined, undefined, '0', { kind: 'Any' }],
    [undefined, undefined, undefined, '7', { kind: 'NotOlderThan', revision: '7' }],
    // match unset, limit=n, no continue
    [undefined, 5, undefined, undefined, { kind: 'MostRecent' }],
    [undefined, 5, undefined, '0', { kind: 'Any' }],
    [undefined, 5, undefined, '7', { kind: 'Exact', revision: '7' }],
    // match unset, limit=n, continue=token
    [undefined, 5, 'tok', undefined, { kind: 'Continue', token: 'tok' }],
    [undefined, 5, 'tok', '0', { kind: 'Continue', token: 'tok' }],
    [undefined, 5, 'tok', '7', 400],
    // Exact
    ['Exact', undefined, undefined, undefined, 400],
    ['Exact', undefined, undefined, '0', 400],
    ['Exact', undefined, undefined, '7', { kind: 'Exact', revision: '7' }],
    ['Exact', 5, undefined, undefined, 400],
    ['Exact', 5, undefined, '0', 400],
    ['Exact', 5, undefined, '7', { kind: 'Exact', revision: '7' }],
    // NotOlderThan
    ['NotOlderThan', undefined, undefined, undefined, 400],
    ['NotOlderThan', undefined, undefined, '0', { kind: 'Any' }],
    ['NotOlderThan', undefined, undefined, '7', { kind: 'NotOlderThan', revision: '7' }],
    ['NotOlderThan', 5, undefined, undefined, 400],
    ['NotOlderThan', 5, undefined, '0', { kind: 'Any' }],
    ['NotOlderThan', 5, undefined, '7', { kind: 'NotOlderThan', revision: '7' }],
    // a match with continue, and an unknown match value
    ['Exact', 5, 'tok', '7', 400],
    ['NotOlderThan', 5, 'tok', undefined, 400],
    ['Newest', undefined, undefined, '7', 400],
  ];

  it.each(rows)('match=%j limit=%j continue=%j rv=%j', (resourceVersionMatch, limit, cont, resourceVersion, expected) => {
    const q = { resourceVersionMatch, limit, continue: cont, resourceVersion };
    if (expected === 400) expect(code(() => listSemantics(q))).toBe(400);
    else expect(listSemantics(q)).toEqual(expected);
  });
});

describe('watch start semantics', () => {
  it('unset: state then changes from the most recent version', () => {
    expect(watchSemantics({})).toEqual({ initialEvents: true, from: { kind: 'MostRecent' }, initialEventsEndBookmark: false });
  });
  it('0: state then changes from any version', () => {
    expect(watchSemantics({ resourceVersion: '0' })).toMatchObject({ initialEvents: true, from: { kind: 'Any' } });
  });
  it('a version: changes after it, no synthetic events', () => {
    expect(watchSemantics({ resourceVersion: '12' })).toEqual({ initialEvents: false, from: { kind: 'Exact', revision: '12' }, initialEventsEndBookmark: false });
  });
  it('sendInitialEvents needs resourceVersionMatch=NotOlderThan', () => {
    expect(code(() => watchSemantics({ sendInitialEvents: true }))).toBe(400);
    expect(code(() => watchSemantics({ sendInitialEvents: true, resourceVersionMatch: 'Exact', resourceVersion: '1' }))).toBe(400);
    expect(watchSemantics({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true })).toEqual({
      initialEvents: true,
      from: { kind: 'MostRecent' },
      initialEventsEndBookmark: true,
    });
    expect(watchSemantics({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', resourceVersion: '9' })).toMatchObject({
      from: { kind: 'NotOlderThan', revision: '9' },
      initialEventsEndBookmark: false,
    });
  });
  it('resourceVersionMatch without sendInitialEvents is 400', () => {
    expect(code(() => watchSemantics({ resourceVersionMatch: 'NotOlderThan', resourceVersion: '1' }))).toBe(400);
  });
});
