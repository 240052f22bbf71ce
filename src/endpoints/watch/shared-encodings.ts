import { Change } from '../../storage/mvcc/object-store';

/**
 * The bytes of events made from one change of the feed, shared by every watcher that sends
 * it the same way (same event type, same encoding): a change seen by a thousand watchers is
 * encoded once and held once, however far behind some of them are. The bytes are held
 * weakly, so they go as soon as no watcher's backlog needs them. Two calls rather than one
 * taking an encoding callback: a watcher that finds the bytes allocates nothing.
 */
const encodings = new WeakMap<Change, Map<string, WeakRef<Buffer>>>();

/** The bytes some watcher encoded for this change under `key`, if still held. */
export function sharedEncoding(change: Change, key: string): Buffer | undefined {
  return encodings.get(change)?.get(key)?.deref();
}

/** Offers the bytes just encoded for this change under `key` to the other watchers. */
export function shareEncoding(change: Change, key: string, bytes: Buffer): void {
  let byKey = encodings.get(change);
  if (!byKey) encodings.set(change, (byKey = new Map<string, WeakRef<Buffer>>()));
  byKey.set(key, new WeakRef(bytes));
}
