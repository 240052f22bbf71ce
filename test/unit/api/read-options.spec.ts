import { everything, parseGetOptions, parseListOptions, parseWatchOptions, Query } from '../../../src/registry/options/read-options';
import { KubeObject } from '../../../src/apimachinery/types';
import { secretType } from '../../../src/core/kinds/secret';
import { roleType } from '../../../src/rbac/kinds/kinds';
import { statusOf } from '../../support/status-of';

const list = (query: Query) => parseListOptions(query, roleType);
const watch = (query: Query) => parseWatchOptions(query, roleType);
/** The 400 a query is refused with, as `code message`. */
const refusal = (fn: () => unknown) => {
  const err = statusOf(fn);
  return `${err.code} ${err.message}`;
};
const obj = (name: string, labels: Record<string, string> = {}, namespace = 'ns'): KubeObject => ({ metadata: { name, namespace, labels } });

describe('GetOptions', () => {
  it('resourceVersion: unset and empty are most recent, 0 any, N not older than N', () => {
    expect(parseGetOptions({})).toEqual({ resourceVersion: { kind: 'MostRecent' } });
    expect(parseGetOptions({ resourceVersion: '' })).toEqual({ resourceVersion: { kind: 'MostRecent' } });
    expect(parseGetOptions({ resourceVersion: '0' })).toEqual({ resourceVersion: { kind: 'Any' } });
    expect(parseGetOptions({ resourceVersion: ['012', '9'] })).toEqual({ resourceVersion: { kind: 'NotOlderThan', revision: '12' } });
  });

  it('a resourceVersion that is not a revision is 400', () => {
    expect(refusal(() => parseGetOptions({ resourceVersion: 'abc' }))).toBe('400 invalid resource version: "abc"');
  });
});

describe('ListOptions', () => {
  it('limit: a positive int64 caps the list; 0 and negative mean none; the first value counts', () => {
    expect(list({ limit: '4' }).limit).toBe(4);
    expect(list({ limit: ['3', '5'] }).limit).toBe(3);
    expect(list({ limit: '+7' }).limit).toBe(7);
    for (const none of ['0', '-3', '-9223372036854775808']) expect(list({ limit: none })).not.toHaveProperty('limit');
    expect(list({})).not.toHaveProperty('limit');
    // Beyond what any list can hold: the store's bound.
    expect(list({ limit: '9223372036854775807' }).limit).toBe(2 ** 31);
  });

  it("limit errors are strconv.ParseInt's, naming the parameter; an empty limit is one", () => {
    expect(refusal(() => list({ limit: 'abc' }))).toBe('400 limit: strconv.ParseInt: parsing "abc": invalid syntax');
    expect(refusal(() => list({ limit: '1.5' }))).toBe('400 limit: strconv.ParseInt: parsing "1.5": invalid syntax');
    expect(refusal(() => list({ limit: '' }))).toBe('400 limit: strconv.ParseInt: parsing "": invalid syntax');
    expect(refusal(() => list({ limit: '9223372036854775808' }))).toBe('400 limit: strconv.ParseInt: parsing "9223372036854775808": value out of range');
  });

  it('a list decodes every ListOptions field: a bad timeoutSeconds is 400 there too, and sendInitialEvents is refused', () => {
    expect(refusal(() => list({ timeoutSeconds: 'soon' }))).toBe('400 timeoutSeconds: strconv.ParseInt: parsing "soon": invalid syntax');
    expect(refusal(() => list({ sendInitialEvents: 'false' }))).toBe('400 sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list');
  });

  it('resourceVersion, resourceVersionMatch, limit and continue decide where the list reads', () => {
    expect(list({}).semantics).toEqual({ kind: 'MostRecent' });
    expect(list({ resourceVersion: '0' }).semantics).toEqual({ kind: 'Any' });
    expect(list({ resourceVersion: '7' }).semantics).toEqual({ kind: 'NotOlderThan', revision: '7' });
    expect(list({ resourceVersion: '7', limit: '2' }).semantics).toEqual({ kind: 'Exact', revision: '7' });
    // A limit that means none does not make the read exact.
    expect(list({ resourceVersion: '7', limit: '0' }).semantics).toEqual({ kind: 'NotOlderThan', revision: '7' });
    expect(list({ resourceVersion: '7', resourceVersionMatch: 'Exact' }).semantics).toEqual({ kind: 'Exact', revision: '7' });
    expect(list({ resourceVersion: '7', resourceVersionMatch: 'NotOlderThan' }).semantics).toEqual({ kind: 'NotOlderThan', revision: '7' });
    expect(list({ continue: 'tok', limit: '2' }).semantics).toEqual({ kind: 'Continue', token: 'tok' });
  });

  it('each resourceVersion error is a 400 in kube\'s words', () => {
    expect(refusal(() => list({ resourceVersion: 'x' }))).toBe('400 invalid resource version: "x"');
    expect(refusal(() => list({ resourceVersionMatch: 'Newest', resourceVersion: '1' }))).toBe(
      '400 resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan"',
    );
    expect(refusal(() => list({ resourceVersionMatch: 'Exact' }))).toBe(
      '400 resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    );
    expect(refusal(() => list({ resourceVersionMatch: 'Exact', resourceVersion: '0' }))).toBe(
      '400 resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    );
    expect(refusal(() => list({ resourceVersionMatch: 'Exact', resourceVersion: '3', continue: 'tok' }))).toBe(
      '400 resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
    );
    expect(refusal(() => list({ continue: 'tok', resourceVersion: '5' }))).toBe('400 specifying resource version is not allowed when using continue');
  });

  it('labelSelector and fieldSelector select objects; empty selectors select everything', () => {
    const all = list({});
    expect(all.predicate.filtering).toBe(false);
    expect(all.predicate.matches(obj('a'))).toBe(true);
    const byLabel = list({ labelSelector: 'tier in (web),!legacy' });
    expect(byLabel.predicate.filtering).toBe(true);
    expect([obj('a', { tier: 'web' }), obj('b', { tier: 'db' }), obj('c', { tier: 'web', legacy: '' })].filter(byLabel.predicate.matches).map((o) => o.metadata.name)).toEqual(['a']);
    const byField = list({ fieldSelector: 'metadata.name!=a,metadata.namespace=ns' });
    expect([obj('a'), obj('b'), obj('c', {}, 'other')].filter(byField.predicate.matches).map((o) => o.metadata.name)).toEqual(['b']);
    expect(everything(roleType)).toMatchObject({ semantics: { kind: 'MostRecent' }, predicate: { filtering: false } });
  });

  it("a kind's own selectable fields are accepted for it only", () => {
    const secrets = parseListOptions({ fieldSelector: 'type=Opaque' }, secretType);
    expect(secrets.predicate.matches({ metadata: { name: 's' }, type: 'Opaque' } as KubeObject)).toBe(true);
    expect(secrets.predicate.matches({ metadata: { name: 's' }, type: 'kubernetes.io/tls' } as KubeObject)).toBe(false);
    expect(refusal(() => list({ fieldSelector: 'type=Opaque' }))).toBe('400 unable to parse requirement: field label not supported: type');
  });

  it('selector syntax errors are 400', () => {
    expect(refusal(() => list({ labelSelector: 'a in b' }))).toMatch(/^400 unable to parse requirement: /);
    expect(refusal(() => list({ fieldSelector: 'metadata.name' }))).toBe(
      "400 unable to parse requirement: invalid selector: 'metadata.name'; can't understand 'metadata.name'",
    );
  });

  it('checks in kube\'s order: the fields as declared (timeoutSeconds before limit), then resourceVersion, then selectors', () => {
    expect(refusal(() => list({ limit: 'x', timeoutSeconds: 'z', resourceVersion: 'y', labelSelector: 'a in b' }))).toMatch(/^400 timeoutSeconds: strconv.ParseInt/);
    expect(refusal(() => list({ limit: 'x', resourceVersion: 'y', labelSelector: 'a in b' }))).toMatch(/^400 limit: strconv.ParseInt/);
    expect(refusal(() => list({ resourceVersion: 'y', labelSelector: 'a in b' }))).toBe('400 invalid resource version: "y"');
  });
});

describe('WatchOptions', () => {
  it('defaults: the current state first, from the newest revision, no bookmarks, no timeout', () => {
    expect(watch({})).toMatchObject({
      start: { initialEvents: true, from: { kind: 'MostRecent' }, initialEventsEndBookmark: false },
      allowWatchBookmarks: false,
      predicate: { filtering: false },
    });
    expect(watch({})).not.toHaveProperty('timeoutSeconds');
  });

  it('resourceVersion: 0 any state, N the changes after N without the state', () => {
    expect(watch({ resourceVersion: '0' }).start).toEqual({ initialEvents: true, from: { kind: 'Any' }, initialEventsEndBookmark: false });
    expect(watch({ resourceVersion: '9' }).start).toEqual({ initialEvents: false, from: { kind: 'Exact', revision: '9' }, initialEventsEndBookmark: false });
    expect(refusal(() => watch({ resourceVersion: 'nine' }))).toBe('400 invalid resource version: "nine"');
  });

  it('allowWatchBookmarks is a boolean by kube\'s rule: only 0 and false (any case) are false', () => {
    for (const on of ['true', '1', 'True', 'yes', '']) expect(watch({ allowWatchBookmarks: on }).allowWatchBookmarks).toBe(true);
    for (const off of ['false', 'FALSE', '0']) expect(watch({ allowWatchBookmarks: off }).allowWatchBookmarks).toBe(false);
    expect(watch({}).allowWatchBookmarks).toBe(false);
  });

  it('sendInitialEvents needs resourceVersionMatch=NotOlderThan; with bookmarks it ends with one', () => {
    const streaming = watch({ sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', resourceVersion: '4', allowWatchBookmarks: 'true' });
    expect(streaming.start).toEqual({ initialEvents: true, from: { kind: 'NotOlderThan', revision: '4' }, initialEventsEndBookmark: true });
    expect(watch({ sendInitialEvents: 'false', resourceVersionMatch: 'NotOlderThan', resourceVersion: '4' }).start).toEqual({
      initialEvents: false,
      from: { kind: 'Exact', revision: '4' },
      initialEventsEndBookmark: false,
    });
    expect(refusal(() => watch({ sendInitialEvents: 'true' }))).toBe(
      '400 resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    );
    expect(refusal(() => watch({ resourceVersionMatch: 'NotOlderThan', resourceVersion: '4' }))).toBe(
      '400 resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    );
  });

  it('timeoutSeconds is an int64 kept as sent (kube ends a negative one at once); anything else is 400', () => {
    expect(watch({ timeoutSeconds: '30' }).timeoutSeconds).toBe(30);
    expect(watch({ timeoutSeconds: '0' }).timeoutSeconds).toBe(0);
    expect(watch({ timeoutSeconds: '-1' }).timeoutSeconds).toBe(-1);
    expect(refusal(() => watch({ timeoutSeconds: '' }))).toBe('400 timeoutSeconds: strconv.ParseInt: parsing "": invalid syntax');
    expect(refusal(() => watch({ timeoutSeconds: '1.5' }))).toBe('400 timeoutSeconds: strconv.ParseInt: parsing "1.5": invalid syntax');
    expect(refusal(() => watch({ timeoutSeconds: '99999999999999999999' }))).toBe(
      '400 timeoutSeconds: strconv.ParseInt: parsing "99999999999999999999": value out of range',
    );
  });

  it('selectors as for a list', () => {
    const labelled = watch({ labelSelector: 'app=x' });
    expect([obj('a', { app: 'x' }), obj('b')].filter(labelled.predicate.matches).map((o) => o.metadata.name)).toEqual(['a']);
    const one = watch({ fieldSelector: 'metadata.name=mine' });
    expect([obj('mine'), obj('other')].filter(one.predicate.matches).map((o) => o.metadata.name)).toEqual(['mine']);
    expect(refusal(() => watch({ fieldSelector: 'spec.x=1' }))).toBe('400 unable to parse requirement: field label not supported: spec.x');
  });

  it("checks in kube's order: resourceVersion rules, then selectors, then timeoutSeconds", () => {
    expect(refusal(() => watch({ resourceVersion: 'x', labelSelector: 'a in b', timeoutSeconds: '-1' }))).toBe('400 invalid resource version: "x"');
    expect(refusal(() => watch({ labelSelector: 'a in b', timeoutSeconds: '-1' }))).toMatch(/^400 unable to parse requirement: /);
  });
});
