import { watchTimeoutSeconds } from '../../../src/endpoints/watch/watch-timeout';

describe('how long a watch runs (kube --min-request-timeout)', () => {
  it("is the client's timeoutSeconds when it gave one", () => {
    expect(watchTimeoutSeconds(30, 1800, () => 0.5)).toBe(30);
    expect(watchTimeoutSeconds(-1, 1800, () => 0.5)).toBe(-1);
  });

  it('is otherwise a random time between --min-request-timeout and twice it', () => {
    expect(watchTimeoutSeconds(undefined, 1800, () => 0)).toBe(1800);
    expect(watchTimeoutSeconds(undefined, 1800, () => 0.25)).toBe(2250);
    expect(watchTimeoutSeconds(0, 10, () => 0.999)).toBeCloseTo(19.99);
    for (let i = 0; i < 100; i++) {
      const seconds = watchTimeoutSeconds(undefined, 60)!;
      expect(seconds).toBeGreaterThanOrEqual(60);
      expect(seconds).toBeLessThan(120);
    }
  });

  it('has no end of its own with a minimum of 0', () => {
    expect(watchTimeoutSeconds(undefined, 0)).toBeUndefined();
    expect(watchTimeoutSeconds(0, 0)).toBeUndefined();
  });
});
