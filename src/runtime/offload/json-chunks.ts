import { setOwn } from '../../apimachinery/types';
import { SLICE_MS, yieldToEventLoop } from './loop-turn';

/**
 * A JSON value cut into pieces of about CHUNK_CHARS each, so that the event loop can build a
 * large value a codec thread made a piece at a time, letting other work in between. Copying
 * a 3 MB object back from a thread in one message held the loop for 150 to 500 ms; one
 * JSON.parse of it, 50 to 150 ms on a busy machine; a piece takes under a millisecond.
 *
 * `root` is the value with each large array or object left empty; each part then appends
 * entries (a JSON array of items, or a JSON object of members) to the container at `path`,
 * in order. A large container inside a part is left empty there and filled by later parts.
 */
export interface JsonChunks {
  root: string;
  parts: Array<{ path: Array<string | number>; text: string }>;
}

/** The size of one piece, in characters of JSON. */
const CHUNK_CHARS = 64 * 1024;

type Container = Record<string, unknown> | unknown[];
type Path = Array<string | number>;

const isContainer = (value: unknown): value is Container => value !== null && typeof value === 'object';

/**
 * The JSON of `value` cut into pieces of about `chunkChars` (run on a codec thread: it
 * stringifies the whole value, large containers more than once).
 */
export function toJsonChunks(value: unknown, chunkChars = CHUNK_CHARS): JsonChunks {
  const parts: JsonChunks['parts'] = [];
  const deferred: Array<[Container, Path]> = [];
  const root = encode(value, [], deferred, chunkChars);
  for (const [container, path] of deferred) fill(container, path, parts, chunkChars);
  return { root, parts };
}

/** A value's JSON, or an empty container to fill later when it is a large one. */
function encode(value: unknown, path: Path, deferred: Array<[Container, Path]>, chunkChars: number): string {
  const text = JSON.stringify(value);
  if (text === undefined || text.length <= chunkChars || !isContainer(value)) return text;
  deferred.push([value, path]);
  return Array.isArray(value) ? '[]' : '{}';
}

function fill(container: Container, path: Path, parts: JsonChunks['parts'], chunkChars: number): void {
  const isArray = Array.isArray(container);
  let members: string[] = [];
  let size = 0;
  const deferred: Array<[Container, Path]> = [];
  const flush = () => {
    if (members.length) parts.push({ path, text: isArray ? `[${members.join(',')}]` : `{${members.join(',')}}` });
    members = [];
    size = 0;
    // The containers this piece left empty are filled after it, before the next piece.
    for (const [child, childPath] of deferred) fill(child, childPath, parts, chunkChars);
    deferred.length = 0;
  };
  const add = (member: string) => {
    members.push(member);
    size += member.length;
    if (size >= chunkChars) flush();
  };
  if (isArray) {
    // JSON.stringify writes an array's holes and undefined items as null.
    for (let i = 0; i < container.length; i++) add(encode(container[i], [...path, i], deferred, chunkChars) ?? 'null');
  } else {
    for (const key of Object.keys(container)) {
      const text = encode(container[key], [...path, key], deferred, chunkChars);
      if (text !== undefined) add(`${JSON.stringify(key)}:${text}`);
    }
  }
  flush();
}

function containerAt(root: unknown, path: Path): Container {
  let at = root;
  for (const step of path) at = (at as Record<string, unknown>)[step];
  return at as Container;
}

function addPart(root: unknown, path: Path, text: string): void {
  const container = containerAt(root, path);
  const piece = JSON.parse(text) as Container;
  if (Array.isArray(container)) {
    for (const item of piece as unknown[]) container.push(item);
    return;
  }
  const members = piece as Record<string, unknown>;
  for (const key of Object.keys(members)) setOwn(container, key, members[key]);
}

/** The value of `chunks` at once (on a codec thread, or for a value known to be small). */
export function fromJsonChunks(chunks: JsonChunks): unknown {
  const root: unknown = JSON.parse(chunks.root);
  for (const part of chunks.parts) addPart(root, part.path, part.text);
  return root;
}

/** The value of `chunks`, built SLICE_MS at a time on the event loop. */
export async function fromJsonChunksInSlices(chunks: JsonChunks): Promise<unknown> {
  const root: unknown = JSON.parse(chunks.root);
  let sliceStart = performance.now();
  for (const part of chunks.parts) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToEventLoop();
      sliceStart = performance.now();
    }
    addPart(root, part.path, part.text);
  }
  return root;
}

/** Whether `chunks` holds a large value (more than one piece). */
export const isChunked = (chunks: JsonChunks) => chunks.parts.length > 0;
