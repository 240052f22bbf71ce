import { Change } from '../../storage/object-store';

/**
 * The bytes of events made from one change of the feed, shared by every watcher that sends
 * it the same way (same event type, same encoding): a change seen by a thousand watchers is
 * encoded once and held once, however far behind some of them are. The bytes are held
 * weakly, so they go as soon as no watcher's backlog needs them.
 */
const encodings = new WeakMap<Change, Map<string, WeakRef<Buffer>>>();

export function encodedOnce(change: Change, key: string, encode: () => Buffer): Buffer {
  let byKey = encodings.get(change);
  if (!byKey) encodings.set(change, (byKey = new Map<string, WeakRef<Buffer>>()));
  const held = byKey.get(key)?.deref();
  if (held) return held;
  const bytes = encode();
  byKey.set(key, new WeakRef(bytes));
  return bytes;
}
