import { compactionInterval } from '../../../src/storage/mvcc/compactor';
import { buildListQuery } from '../../../src/storage/mvcc/list-query';
import { commandOf } from '../../../src/storage/engine/pglite-driver';

describe('commandOf', () => {
  it('names the leading keyword, past comments and whitespace', () => {
    expect(commandOf('  update t set x = 1')).toBe('UPDATE');
    expect(commandOf('-- why\n/* block */ DELETE FROM t')).toBe('DELETE');
    expect(commandOf('WITH a AS (SELECT 1) SELECT * FROM a')).toBe('WITH');
    expect(commandOf('')).toBe('');
  });
});

describe('compactionInterval', () => {
  it('is half the window, at most a minute', () => {
    expect(compactionInterval(300_000)).toBe(60_000);
    expect(compactionInterval(60_000)).toBe(30_000);
    expect(compactionInterval(1_000)).toBe(500);
  });
});

describe('buildListQuery', () => {
  it('numbers parameters in the order it adds filters', () => {
    const q = buildListQuery('g/r', { namespace: 'ns', after: { namespace: 'ns', name: 'b' }, atRevision: '7', limit: 2 });
    expect(q.params).toEqual(['g/r', 'ns', 'ns', 'b', '7', 3]);
    expect(q.sql).toContain('namespace = $2');
    expect(q.sql).toContain('(namespace, name) > ($3, $4)');
    expect(q.sql).toContain('revision <= $5');
    expect(q.sql).toContain('LIMIT $6');
  });

  it('fetches everything, and counts nothing, without a limit', () => {
    const q = buildListQuery('g/r', {});
    expect(q.params).toEqual(['g/r']);
    expect(q.sql).not.toContain('LIMIT');
    expect(q.sql).not.toContain('count(*)');
  });
});
