/**
 * Where time comes from, for decisions that depend on it (a binding's validity window):
 * injected so tests can set it to the second instead of waiting.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** The Nest injection token of the process's clock. */
export const CLOCK = Symbol('Clock');

export const systemClock: Clock = { now: () => Date.now() };
