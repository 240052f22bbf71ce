import { Clock } from '../../src/apimachinery/clock';

/**
 * A clock a test moves forward instead of waiting: the system's time plus what the test has
 * advanced it by, so time still passes between requests as a running server expects.
 */
export class TestClock implements Clock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
