import { parseServerFlags } from '../../../src/config/flags';

const HOUR = 3600_000;

describe('--access-history-retention', () => {
  it('defaults to 90 days and reads Go durations, 0 keeping history forever', () => {
    expect(parseServerFlags([], {}).accessHistoryRetentionMs).toBe(90 * 24 * HOUR);
    expect(parseServerFlags(['--access-history-retention=720h'], {}).accessHistoryRetentionMs).toBe(720 * HOUR);
    expect(parseServerFlags(['--access-history-retention', '0'], {}).accessHistoryRetentionMs).toBe(0);
  });

  it("refuses what is not a duration, in kube's words", () => {
    expect(() => parseServerFlags(['--access-history-retention=90d'], {})).toThrow(
      'invalid argument "90d" for "--access-history-retention" flag: time: unknown unit "d" in duration "90d"',
    );
  });

  it('is a controller --controllers can turn off', () => {
    expect(parseServerFlags(['--controllers=*,-access-history'], {}).controllers).toEqual(['*', '-access-history']);
  });
});
