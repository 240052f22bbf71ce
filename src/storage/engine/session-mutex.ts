/** Releases a held session; calling it again does nothing. */
export type Unlock = () => void;

/**
 * A first-come-first-served lock for a resource only one caller may use at a time
 * (PGlite's single database session).
 */
export class SessionMutex {
  private tail: Promise<void> = Promise.resolve();

  /** Resolves once every earlier holder has unlocked. */
  acquire(): Promise<Unlock> {
    let unlockNext!: () => void;
    const next = new Promise<void>((resolve) => (unlockNext = resolve));
    const ready = this.tail.then(() => {
      let released = false;
      return () => {
        if (released) return;
        released = true;
        unlockNext();
      };
    });
    this.tail = next;
    return ready;
  }

  /** Runs `fn` while holding the lock. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const unlock = await this.acquire();
    try {
      return await fn();
    } finally {
      unlock();
    }
  }
}
