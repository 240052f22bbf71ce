/**
 * Where time comes from, for decisions that depend on it (a binding's validity window, a
 * client certificate's expiry, how long a cached answer counts): injected so tests can set
 * it to the second instead of waiting.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** The Nest injection token of the process's clock (the application module provides it). */
export const CLOCK = Symbol('Clock');

export const systemClock: Clock = { now: () => Date.now() };
