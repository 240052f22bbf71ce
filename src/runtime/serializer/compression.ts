import { promisify } from 'node:util';
import { gzip as gzipCallback, gzipSync } from 'node:zlib';

const gzipInPool = promisify(gzipCallback);

/** kube compresses only bodies larger than this (responsewriters' defaultGzipThresholdBytes). */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;
/** kube's gzip level: least CPU for a ratio close to the best. */
export const GZIP_LEVEL = 1;

/**
 * Accept-Encoding lists gzip as a token of its own (kube's negotiateContentEncoding: a
 * `gzip;q=...` entry is not recognised) and the APIResponseCompression gate is on.
 */
export function gzipAccepted(acceptEncoding: string | string[] | undefined, gateEnabled: boolean): boolean {
  if (!gateEnabled || !acceptEncoding) return false;
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : acceptEncoding;
  return header.split(',').some((token) => token.trim() === 'gzip');
}

/** The body as sent, and the headers that say how. */
export interface EncodedBody {
  /** Bytes, or UTF-8 text (a JSON or YAML body left as the string it was rendered as). */
  body: Buffer | string;
  headers: Record<string, string>;
}

/** Compresses a body above the threshold when the client accepts gzip. */
export function contentEncode(body: Buffer | string, gzip: boolean): EncodedBody {
  if (!gzip || byteLength(body) <= GZIP_THRESHOLD_BYTES) return { body, headers: {} };
  return { body: gzipSync(body, { level: GZIP_LEVEL }), headers: { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' } };
}

/** The same, compressing in libuv's thread pool: a large body is not compressed on the event loop. */
export async function contentEncodeAsync(body: Buffer | string, gzip: boolean): Promise<EncodedBody> {
  if (!gzip || byteLength(body) <= GZIP_THRESHOLD_BYTES) return { body, headers: {} };
  return { body: await gzipInPool(body, { level: GZIP_LEVEL }), headers: { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' } };
}

function byteLength(body: Buffer | string): number {
  // A string has at least as many bytes as characters: count only when it could be over.
  if (typeof body !== 'string') return body.length;
  return body.length * 3 <= GZIP_THRESHOLD_BYTES ? body.length : Buffer.byteLength(body);
}
