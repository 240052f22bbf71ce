import { compareUtf8 } from '../../../src/storage/cacher/resource-snapshots';

describe('the order of a cache snapshot', () => {
  it('orders text bytewise as UTF-8, as the store orders its keys (the "C" collation)', () => {
    const words = ['b', 'a', 'B', 'a-b', 'a.b', 'ab', '', 'z', '\u00e9', '\uffef', '\u{1f600}', '\ue000', 'a\u{10000}', 'a\uffff'];
    const byBytes = [...words].sort((x, y) => Buffer.compare(Buffer.from(x, 'utf8'), Buffer.from(y, 'utf8')));
    expect([...words].sort(compareUtf8)).toEqual(byBytes);
  });
});
