import { fieldShape, ReviewManagedFields } from '../../../src/reviews/review-managed-fields';
import { atomicList, map, setList, string, struct } from '../../../src/runtime/schema/schema';

const schema = struct({
  spec: struct({ user: string(), groups: atomicList(string()), extra: map(atomicList(string())) }),
  metadata: struct({ finalizers: setList(string()), labels: map(string()) }),
});

describe('review managed fields', () => {
  it('gives bodies that set the same fields the same shape, whatever their scalar and atomic values', () => {
    const a = fieldShape({ spec: { user: 'alice', groups: ['a'] } }, schema);
    expect(fieldShape({ spec: { user: 'bob', groups: ['x', 'y'] } }, schema)).toBe(a);
  });

  it('tells apart bodies that set other fields, other map keys or other set values', () => {
    const base = fieldShape({ spec: { user: 'alice' } }, schema);
    expect(fieldShape({ spec: { user: 'alice', groups: [] } }, schema)).not.toBe(base);
    expect(fieldShape({ spec: { extra: { a: ['1'] } } }, schema)).not.toBe(fieldShape({ spec: { extra: { b: ['1'] } } }, schema));
    expect(fieldShape({ metadata: { finalizers: ['x'] } }, schema)).not.toBe(fieldShape({ metadata: { finalizers: ['y'] } }, schema));
  });

  it('computes once per manager and shape, stamping each answer with the current time', () => {
    const memo = new ReviewManagedFields(schema);
    const compute = jest.fn(() => [{ manager: 'm', operation: 'Update' as const, time: 'then', fieldsType: 'FieldsV1' as const, fieldsV1: { 'f:spec': {} } }]);
    expect(memo.of({ spec: { user: 'a' } }, 'm', 't1', compute)).toEqual([{ manager: 'm', operation: 'Update', time: 't1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} } }]);
    expect(memo.of({ spec: { user: 'b' } }, 'm', 't2', compute)?.[0].time).toBe('t2');
    expect(compute).toHaveBeenCalledTimes(1);
    memo.of({ spec: { user: 'b' } }, 'other', 't2', compute);
    expect(compute).toHaveBeenCalledTimes(2);
  });
});
