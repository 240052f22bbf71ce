const CRLF = Buffer.from('\r\n', 'latin1');

/**
 * One HTTP/1.1 chunk holding `payload` (its size in hex, CRLF, the bytes, CRLF): what Node's
 * response writes for each `write` of a chunked body, made once so that the same bytes can
 * go to many sockets. The payload must not be empty (an empty chunk ends the body).
 */
export function httpChunk(payload: Buffer): Buffer {
  const size = Buffer.from(`${payload.length.toString(16)}\r\n`, 'latin1');
  return Buffer.concat([size, payload, CRLF], size.length + payload.length + CRLF.length);
}

/** The payload length of a chunk made by `httpChunk`, read from its size line. */
export function httpChunkPayloadLength(chunk: Buffer): number {
  let length = 0;
  for (let i = 0; chunk[i] !== 0x0d; i++) {
    const c = chunk[i];
    length = length * 16 + (c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57);
  }
  return length;
}
