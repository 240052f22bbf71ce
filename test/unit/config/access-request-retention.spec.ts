import { parseServerFlags } from '../../../src/config/flags';

const HOUR = 3600_000;

describe('--access-request-retention', () => {
  it('defaults to 90 days and reads Go durations, 0 keeping ended requests forever', () => {
    expect(parseServerFlags([], {}).accessRequestRetentionMs).toBe(90 * 24 * HOUR);
    expect(parseServerFlags(['--access-request-retention=720h'], {}).accessRequestRetentionMs).toBe(720 * HOUR);
    expect(parseServerFlags(['--access-request-retention', '0'], {}).accessRequestRetentionMs).toBe(0);
  });

  it('refuses what is not a duration, in kube\'s words', () => {
    expect(() => parseServerFlags(['--access-request-retention=90d'], {})).toThrow('invalid argument "90d" for "--access-request-retention" flag: time: unknown unit "d" in duration "90d"');
  });
});
