import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { Response } from 'express';
import { isPlainObject } from '../../apimachinery/types';
import { GZIP_LEVEL } from '../serializer/compression';
import { hasLongArrays, jsonParts } from '../serializer/json-pieces';
import { SLICE_MS } from './loop-turn';
import { sendRenderedOffLoop, yieldToEventLoop } from './offload';

/**
 * A JSON list whose text passes this is written to the client as its items are encoded: the
 * whole text (55 MiB for 110,000 bindings) is never held, and the socket's backpressure paces
 * the encoding. Smaller lists are sent whole, with a Content-Length, as before.
 */
export const STREAMED_LIST_CHARS = 1024 * 1024;
/**
 * Once streaming, text goes to the socket in pieces this size: converting and encrypting a
 * 1 MiB piece in one step held the event loop for tens of ms under load. Up to
 * STREAMED_LIST_CHARS may wait in the socket's buffer before encoding waits for it to drain,
 * so as much stays in flight as before.
 */
const WRITE_CHARS = 64 * 1024;

/** A JSON answer with long arrays (a list, a large who-can answer) can be streamed; a Status never is. */
export function isStreamableJson(body: unknown): body is Record<string, unknown> {
  return isPlainObject(body) && body.kind !== 'Status' && hasLongArrays(body);
}

/**
 * Sends an answer as JSON text, the same bytes as JSON.stringify and a newline. Up to
 * STREAMED_LIST_CHARS it is sent whole (compressed above kube's threshold when negotiated);
 * past it, the response goes out in chunks as the long arrays' elements are encoded (chunked
 * transfer, gzip as a stream when negotiated: the body is then far above the threshold), so
 * no text of the whole answer is ever made. A client that leaves stops the encoding.
 */
export async function sendJsonOffLoop(res: Response, code: number, contentType: string, body: Record<string, unknown>, gzip: boolean): Promise<void> {
  let pending: (string | Buffer)[] = [];
  let pendingChars = 0;
  let sink: Writable | null = null;
  let sliceStart = performance.now();
  let count = 0;
  for (const piece of jsonParts(body)) {
    pending.push(piece);
    pendingChars += piece.length;
    if (pendingChars >= (sink ? WRITE_CHARS : STREAMED_LIST_CHARS)) {
      sink ??= startStream(res, code, contentType, gzip);
      const wrote = writeTo(sink, res, pending);
      pending = [];
      pendingChars = 0;
      if (wrote !== true) {
        // Waiting for the socket let other work in: a new slice starts after it.
        if (!(await wrote)) return;
        sliceStart = performance.now();
      }
    }
    // A Buffer is a run of kept elements, possibly encoded just now: the clock is read after each.
    if ((typeof piece !== 'string' || (++count & 63) === 0) && performance.now() - sliceStart > SLICE_MS) {
      await yieldToEventLoop();
      if (res.destroyed) return;
      sliceStart = performance.now();
    }
  }
  pending.push('\n');
  if (!sink) return sendRenderedOffLoop(res, code, { contentType, body: joined(pending) }, gzip);
  if (!res.destroyed && !sink.destroyed) writePieces(sink, pending);
  sink.end();
  if (sink !== res) await once(res, 'finish').catch(() => undefined);
}

/** Pieces as one chunk: text when they are all text, else their UTF-8 bytes (each stretch of text converted once). */
function joined(pieces: readonly (string | Buffer)[]): string | Buffer {
  if (pieces.length === 1) return pieces[0];
  const buffers: Buffer[] = [];
  let text: string[] = [];
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      text.push(piece);
      continue;
    }
    if (text.length) buffers.push(Buffer.from(text.join(''), 'utf8'));
    text = [];
    buffers.push(piece);
  }
  if (!buffers.length) return text.join('');
  if (text.length) buffers.push(Buffer.from(text.join(''), 'utf8'));
  return Buffer.concat(buffers);
}

function startStream(res: Response, code: number, contentType: string, gzip: boolean): Writable {
  res.statusCode = code;
  res.setHeader('Content-Type', contentType);
  if (!gzip) return res;
  res.setHeader('Content-Encoding', 'gzip');
  res.setHeader('Vary', 'Accept-Encoding');
  const compressor = createGzip({ level: GZIP_LEVEL });
  compressor.pipe(res);
  // A client that leaves ends the compressor too, so nothing waits on it.
  res.once('close', () => compressor.destroy());
  return compressor;
}

/** Writes pieces as one chunk, or a large run that ends them as it is (its bytes are not copied); write's answer. */
function writePieces(sink: Writable, pieces: readonly (string | Buffer)[]): boolean {
  const last = pieces[pieces.length - 1];
  if (typeof last === 'string' || last.length < WRITE_CHARS || pieces.length === 1) return sink.write(joined(pieces));
  sink.write(joined(pieces.slice(0, -1)));
  return sink.write(last);
}

/**
 * Writes pieces; true at once while the socket holds less than STREAMED_LIST_CHARS,
 * else a promise of its draining (false once the client is gone).
 */
function writeTo(sink: Writable, res: Response, pieces: readonly (string | Buffer)[]): true | Promise<boolean> {
  if (res.destroyed || sink.destroyed) return Promise.resolve(false);
  if (writePieces(sink, pieces) || sink.writableLength < STREAMED_LIST_CHARS) return true;
  const drained = new Promise<boolean>((resolve) => {
    const done = (ok: boolean) => () => {
      sink.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = done(true);
    const onClose = done(false);
    sink.once('drain', onDrain);
    res.once('close', onClose);
  });
  return drained;
}
