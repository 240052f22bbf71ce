/**
 * How long a long pass on the event loop (encoding, building or comparing a large value) runs
 * before it yields: short enough that a probe waiting behind it is answered well within 100 ms.
 */
export const SLICE_MS = 8;

/**
 * Lets I/O that waited (a liveness probe's request) in before the next stage of a large
 * request. One setImmediate is not enough when the stage before ran in an I/O callback (a
 * request's body, a codec or engine thread's answer): the immediate runs in the same turn of
 * the loop, before libuv polls again, so a probe that arrived meanwhile waited for the next
 * stage too. The second immediate runs after the next poll.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
