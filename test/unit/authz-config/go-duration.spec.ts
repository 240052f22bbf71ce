import { formatGoDuration, parseGoDuration } from '../../../src/config/go-duration';

describe('Go durations', () => {
  it.each([
    ['5m', 300_000],
    ['30s', 30_000],
    ['1h2m3s', 3_723_000],
    ['1.5s', 1500],
    ['500ms', 500],
    ['-30s', -30_000],
    ['0', 0],
    ['2us', 0.002],
    ['100ns', 0.0001],
  ])('parses %s', (text, ms) => expect(parseGoDuration(text)).toBeCloseTo(ms, 9));

  it.each([
    ['', 'time: invalid duration ""'],
    ['5', 'time: missing unit in duration "5"'],
    ['5d', 'time: unknown unit "d" in duration "5d"'],
    ['soon', 'time: invalid duration "soon"'],
  ])('rejects %j', (text, message) => expect(() => parseGoDuration(text)).toThrow(message));

  it.each([
    [300_000, '5m0s'],
    [30_000, '30s'],
    [3_600_000, '1h0m0s'],
    [1500, '1.5s'],
    [500, '500ms'],
    [-30_000, '-30s'],
    [0, '0s'],
    [45_000, '45s'],
  ])('formats %d ms as %s', (ms, text) => expect(formatGoDuration(ms)).toBe(text));
});
