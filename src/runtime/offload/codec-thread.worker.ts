import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { CodecTask, codecErrorOf, runCodecTask } from './codec-tasks';

/** A codec thread (codec-threads.ts): runs each task it is given, in order, and answers with its result or error. */
const port = parentPort;
if (!port) throw new Error('the codec thread runs in a worker thread');

/**
 * The thread yields the CPU to the event loop: on a machine with few cores a seconds-long
 * parse otherwise takes the loop's core in turns, and a liveness probe waits for its turn.
 * Linux names a thread's id in /proc/thread-self and sets a priority per thread; elsewhere
 * the thread keeps the process's priority.
 */
function lowerPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, 10);
  } catch {
    // Not Linux, or not allowed: the thread runs at the process's priority.
  }
}
lowerPriority();

port.on('message', ({ id, task }: { id: number; task: CodecTask }) => {
  let reply;
  try {
    const value = runCodecTask(task);
    // Bytes go back moved, not copied (a protobuf answer is a Buffer of its own).
    const transfer = value instanceof Uint8Array && value.byteOffset === 0 && value.byteLength === value.buffer.byteLength ? [value.buffer as ArrayBuffer] : [];
    port.postMessage({ id, value }, transfer);
    return;
  } catch (err) {
    reply = { id, error: codecErrorOf(err) };
  }
  port.postMessage(reply);
});
